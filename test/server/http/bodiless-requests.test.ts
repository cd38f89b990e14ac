/**
 * Requests without Content-Length or Transfer-Encoding: HTTP says they have no body, and the
 * server (Node's optimizeEmptyRequests) hands them over already ended, with no 'end' event to
 * wait for. Each must be answered as the same request with `Content-Length: 0` is, whether its
 * handler reads a body (create, delete) or not (get), alone or pipelined on one connection.
 */
import { connect } from 'node:tls';
import { createConfigMaps, inProcessServerForSuite } from '../../helpers/in-process-server';

const CM = '/api/v1/namespaces/default/configmaps';
const ANSWER_WAIT_MS = 5_000;

const server = inProcessServerForSuite();

beforeAll(async () => {
  await createConfigMaps(server, ['one', 'two', 'three']);
});

interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * Sends `heads` (request lines and headers, no body) on one TLS connection, the last asking to
 * close it, and splits what comes back into answers; a server that does not answer within
 * ANSWER_WAIT_MS leaves the list short.
 */
function exchange(heads: readonly string[]): Promise<Answer[]> {
  const { port } = new URL(server.url);
  const { ca, cert, key } = server.credentials;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca, cert, key, servername: 'localhost' });
    const chunks: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answersIn(Buffer.concat(chunks).toString('utf8')));
    };
    const timer = setTimeout(done, ANSWER_WAIT_MS);
    socket.on('secureConnect', () =>
      socket.write(
        heads
          .map(
            (head, index) =>
              `${head}\r\nHost: test\r\n${index === heads.length - 1 ? 'Connection: close\r\n' : ''}\r\n`,
          )
          .join(''),
      ),
    );
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', done);
    socket.on('error', reject);
  });
}

/** The answers in a connection's bytes, each with a Content-Length or chunked body. */
function answersIn(text: string): Answer[] {
  const answers: Answer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length: (\d+)/i.exec(head);
    let body: string;
    rest = rest.slice(headEnd + 4);
    if (length !== null) {
      body = rest.slice(0, Number(length[1]));
      rest = rest.slice(Number(length[1]));
    } else {
      body = '';
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, lineEnd), 16);
        rest = rest.slice(lineEnd + 2);
        if (size === 0) {
          rest = rest.slice(2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    }
    answers.push({ status, body });
  }
  return answers;
}

/** What is compared: the status, and the body's kind, reason, message and the object's name. */
function gist(answer: Answer): unknown {
  const body = JSON.parse(answer.body) as {
    kind: string;
    reason?: string;
    message?: string;
    metadata?: { name?: string };
    details?: { name?: string };
  };
  const name = body.metadata?.name ?? body.details?.name;
  return { status: answer.status, kind: body.kind, reason: body.reason, message: body.message, name };
}

describe('a request without a body', () => {
  it('is answered as the same request with Content-Length: 0: a create that needs one', async () => {
    const [bodiless] = await exchange([`POST ${CM} HTTP/1.1\r\nContent-Type: application/json`]);
    const [empty] = await exchange([`POST ${CM} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 0`]);
    expect(bodiless).toBeDefined();
    expect(gist(bodiless)).toEqual(gist(empty));
    expect(bodiless.status).toBeGreaterThanOrEqual(400);
  });

  it('is answered as the same request with Content-Length: 0: a delete whose options are optional', async () => {
    const [bodiless] = await exchange([`DELETE ${CM}/one HTTP/1.1`]);
    const [empty] = await exchange([`DELETE ${CM}/two HTTP/1.1\r\nContent-Length: 0`]);
    expect(bodiless).toBeDefined();
    expect(gist(bodiless)).toEqual({ ...(gist(empty) as object), name: 'one' });
    expect(bodiless.status).toBe(200);
  });

  it('is answered in order when pipelined, whatever its handler reads', async () => {
    const answers = await exchange([
      `GET ${CM}/three HTTP/1.1`,
      `POST ${CM} HTTP/1.1\r\nContent-Type: application/json`,
      `GET ${CM}/missing HTTP/1.1`,
      `GET ${CM}/three HTTP/1.1`,
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, answers[1]?.status, 404, 200]);
    expect(answers[1].status).toBeGreaterThanOrEqual(400);
    expect(gist(answers[3])).toMatchObject({ kind: 'ConfigMap', name: 'three' });
  });
});
