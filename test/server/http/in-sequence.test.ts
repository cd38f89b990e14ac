/**
 * The handler chain's stages as one Express handler: each runs as Express would run it, and the
 * sequence's end, or an error however it is raised, goes on to the app's later layers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { inSequence } from '../../../server/http/in-sequence';

/** Serves the stages in sequence, then a final handler, with an error handler after them; records what ran. */
async function serve(
  stages: (ran: string[]) => RequestHandler[],
): Promise<{ ran: string[]; get(): Promise<string>; close(): void }> {
  const ran: string[] = [];
  const app = express();
  app.use(inSequence(stages(ran)));
  app.use((_req, res) => {
    ran.push('after');
    res.end('after');
  });
  const onError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    ran.push(`error: ${(error as Error).message}`);
    res.status(500).end('error');
  };
  app.use(onError);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ran,
    get: async () => (await fetch(`http://127.0.0.1:${port}/`)).text(),
    close: () => server.close(),
  };
}

const stage =
  (name: string, ran: string[]): RequestHandler =>
  (_req, _res, next) => {
    ran.push(name);
    next();
  };

test('runs the stages in order, then the layers after the sequence', async () => {
  const app = await serve((ran) => [stage('one', ran), stage('two', ran), stage('three', ran)]);
  try {
    expect(await app.get()).toBe('after');
    expect(app.ran).toEqual(['one', 'two', 'three', 'after']);
  } finally {
    app.close();
  }
});

test('a stage that answers ends the request there', async () => {
  const app = await serve((ran) => [stage('one', ran), (_req, res) => void res.end('answered'), stage('never', ran)]);
  try {
    expect(await app.get()).toBe('answered');
    expect(app.ran).toEqual(['one']);
  } finally {
    app.close();
  }
});

test.each([
  ['passed to next', ((_req, _res, next) => next(new Error('refused'))) as RequestHandler],
  [
    'thrown',
    (() => {
      throw new Error('refused');
    }) as RequestHandler,
  ],
  [
    'as a rejection of the promise a stage returns',
    (async () => Promise.reject(new Error('refused'))) as RequestHandler,
  ],
  [
    'by a stage that continues later',
    ((_req, _res, next) => void setImmediate(() => next(new Error('refused')))) as RequestHandler,
  ],
])('an error %s goes to the error handlers, past the later stages', async (_how, failing) => {
  const app = await serve((ran) => [stage('one', ran), failing, stage('never', ran)]);
  try {
    expect(await app.get()).toBe('error');
    expect(app.ran).toEqual(['one', 'error: refused']);
  } finally {
    app.close();
  }
});
