/**
 * `kubectl logs` (1.33) against a replica in this process whose node is played by kwok, which
 * serves the kubelet API on loopback and a container's log from a file (its ClusterLogs
 * configuration): the log as written, its options passed on to the kubelet, `logs -f` seeing
 * lines appended while it follows, the log over WebSocket, and the reference's answers to
 * options it refuses; and `kubectl exec`, `attach`, `cp` and `port-forward` over WebSocket as
 * kubectl 1.33 speaks them (exec and attach translated to SPDY toward kwok, port-forward's SPDY
 * tunneled), and over SPDY with kubectl's WebSockets turned off (its ClusterExec runs a local
 * command, ClusterAttach follows a file, ClusterPortForward reaches a server of this test);
 * client-go's remotecommand both ways; a WebSocket exec client that stops reading holding kwok
 * back; authorization as 1.34 does it (get for the WebSocket GET, create for the SPDY POST);
 * each path told apart by the audit log.
 */
import { execFile, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { buildGoProgram, findGo } from '../../helpers/go-programs';
import { freePort } from '../../helpers/ports';
import { KUBECTL } from '../../helpers/server';
import { addSimulatedNodes, buildKwok, startKwok, type Kwok } from '../../cluster/reference-controllers';
import { waitFor } from '../../helpers/wait-for';
import { WebSocket } from 'ws';

const NS = '/api/v1/namespaces/default';
const JSON_BODY = { 'Content-Type': 'application/json' };
const NODE = 'kwok-node-0';

/** A line as a container runtime writes it (CRI log format), which kwok reads back. */
const criLine = (second: number, text: string) =>
  `2024-01-01T00:00:${String(second).padStart(2, '0')}.000000000Z stdout F ${text}\n`;

/** kubectl's switches to turn its WebSocket clients off, so that it speaks SPDY. */
const SPDY_ONLY = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false', KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' };

type AuditEvent = {
  stage: string;
  verb: string;
  requestURI: string;
  objectRef?: { subresource?: string };
  responseStatus?: { code: number };
};

describe('connections through kwok as the kubelet', () => {
  let server: InProcessServer;
  let kwok: Kwok;
  let logFile: string;
  let backend: Server;
  let auditDir: string;

  beforeAll(async () => {
    buildKwok(10 * 60_000);
    // kwok's nodes report their name as Hostname, which no resolver knows here: reach them by InternalIP.
    auditDir = mkdtempSync(join(tmpdir(), 'kwok-audit-'));
    writeFileSync(
      join(auditDir, 'policy.yaml'),
      JSON.stringify({
        apiVersion: 'audit.k8s.io/v1',
        kind: 'Policy',
        rules: [
          {
            level: 'Metadata',
            resources: [{ group: '', resources: ['pods/exec', 'pods/attach', 'pods/portforward'] }],
          },
          { level: 'None' },
        ],
      }),
    );
    server = await startInProcessServer([
      '--disable-admission-plugins',
      'ServiceAccount',
      '--kubelet-preferred-address-types=InternalIP',
      `--audit-policy-file=${join(auditDir, 'policy.yaml')}`,
      `--audit-log-path=${join(auditDir, 'audit.log')}`,
    ]);
    logFile = join(server.dataDir, 'container.log');
    writeFileSync(logFile, criLine(1, 'first line') + criLine(2, 'second line') + criLine(3, 'third line'));
    const logsConfig = join(server.dataDir, 'kwok-logs.yaml');
    writeFileSync(
      logsConfig,
      JSON.stringify({
        apiVersion: 'kwok.x-k8s.io/v1alpha1',
        kind: 'ClusterLogs',
        metadata: { name: 'logs' },
        spec: {
          selector: { matchNamespaces: ['default'] },
          logs: [{ containers: ['app'], logsFile: logFile, follow: true }],
        },
      }),
    );
    const execConfig = join(server.dataDir, 'kwok-exec.yaml');
    writeFileSync(
      execConfig,
      JSON.stringify({
        apiVersion: 'kwok.x-k8s.io/v1alpha1',
        kind: 'ClusterExec',
        metadata: { name: 'exec' },
        spec: {
          selector: { matchNamespaces: ['default'] },
          execs: [{ containers: ['app'], local: { workDir: server.dataDir } }],
        },
      }),
    );
    const attachConfig = join(server.dataDir, 'kwok-attach.yaml');
    writeFileSync(
      attachConfig,
      JSON.stringify({
        apiVersion: 'kwok.x-k8s.io/v1alpha1',
        kind: 'ClusterAttach',
        metadata: { name: 'attach' },
        spec: { selector: { matchNamespaces: ['default'] }, attaches: [{ containers: ['app'], logsFile: logFile }] },
      }),
    );
    // Answers with the request's path and its body, so that bytes cross the tunnel both ways.
    backend = createServer((req, res) => {
      res.write(`forwarded to the test's server: ${req.url}\n`);
      req.pipe(res);
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const forwardConfig = join(server.dataDir, 'kwok-forward.yaml');
    writeFileSync(
      forwardConfig,
      JSON.stringify({
        apiVersion: 'kwok.x-k8s.io/v1alpha1',
        kind: 'ClusterPortForward',
        metadata: { name: 'forward' },
        spec: {
          selector: { matchNamespaces: ['default'] },
          forwards: [{ ports: [80], target: { address: '127.0.0.1', port: (backend.address() as AddressInfo).port } }],
        },
      }),
    );
    const port = await freePort();
    kwok = startKwok(server.kubeconfig, [
      `--config=${logsConfig}`,
      `--config=${execConfig}`,
      `--config=${forwardConfig}`,
      `--config=${attachConfig}`,
      `--server-address=127.0.0.1:${port}`,
      '--node-ip=127.0.0.1',
      `--node-port=${port}`,
    ]);
    await addSimulatedNodes(server, [NODE], 60_000);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: { nodeName: NODE, containers: [{ name: 'app', image: 'busybox' }] },
    };
    expect((await server.request('POST', `${NS}/pods`, { body: JSON.stringify(pod), headers: JSON_BODY })).status).toBe(
      201,
    );
    // kwok reports the kubelet's port once it has taken the node on.
    await waitFor('the node to report its kubelet port', async () => {
      const node = (await server.request('GET', `/api/v1/nodes/${NODE}`)).json<{
        status?: { daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
      }>();
      return node.status?.daemonEndpoints?.kubeletEndpoint?.Port === port ? true : undefined;
    });
  }, 30 * 60_000);

  const auditEvents = (): AuditEvent[] =>
    readFileSync(join(auditDir, 'audit.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEvent);

  afterAll(async () => {
    backend?.close();
    await kwok?.stop();
    await server?.stop();
    if (auditDir) rmSync(auditDir, { recursive: true, force: true });
  });

  it('kubectl logs prints the container log, and passes tail and timestamps on', async () => {
    const all = await server.kubectl(['logs', 'web']);
    expect(all).toMatchObject({ code: 0, stdout: 'first line\nsecond line\nthird line\n' });
    const tail = await server.kubectl(['logs', 'web', '--tail=1']);
    expect(tail).toMatchObject({ code: 0, stdout: 'third line\n' });
    const stamped = await server.kubectl(['logs', 'web', '-c', 'app', '--timestamps', '--tail=1']);
    expect(stamped).toMatchObject({ code: 0, stdout: '2024-01-01T00:00:03.000000000Z third line\n' });
    const limited = await server.request('GET', `${NS}/pods/web/log?limitBytes=5`);
    expect({ status: limited.status, type: limited.headers['content-type'], body: limited.body }).toEqual({
      status: 200,
      type: 'text/plain',
      body: 'first',
    });
  });

  it('streams the log over WebSocket, binary or base64 as the client asks', async () => {
    const url = `${server.url.replace(/^https/, 'wss')}${NS}/pods/web/log?tailLines=2`;
    const read = (protocols: string[]) =>
      new Promise<{ protocol: string; messages: string[] }>((resolve, reject) => {
        const ws = new WebSocket(url, protocols, server.credentials);
        const messages: string[] = [];
        ws.on('message', (data: Buffer, binary: boolean) =>
          messages.push(`${binary ? 'binary' : 'text'}:${data.toString()}`),
        );
        ws.on('error', reject);
        ws.on('close', () => resolve({ protocol: ws.protocol, messages }));
      });
    // An empty message first, then the log as it comes.
    const binary = await read(['binary.k8s.io']);
    expect(binary.protocol).toBe('binary.k8s.io');
    expect(binary.messages[0]).toBe('binary:');
    expect(
      binary.messages
        .slice(1)
        .map((message) => message.replace(/^binary:/, ''))
        .join(''),
    ).toBe('second line\nthird line\n');
    const base64 = await read(['base64.binary.k8s.io']);
    expect(base64.protocol).toBe('base64.binary.k8s.io');
    expect(base64.messages[0]).toBe('text:');
    expect(
      base64.messages
        .slice(1)
        .map((message) => Buffer.from(message.replace(/^text:/, ''), 'base64').toString())
        .join(''),
    ).toBe('second line\nthird line\n');
  });

  it('kubectl logs -f follows lines as they are written', async () => {
    const child = spawn(KUBECTL, ['--kubeconfig', server.kubeconfig, 'logs', '-f', 'web'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor('the first lines', async () => (out.includes('third line') ? true : undefined), 20_000);
      appendFileSync(logFile, criLine(4, 'written while following'));
      await waitFor(
        'the appended line',
        async () => (out.includes('written while following') ? true : undefined),
        20_000,
      );
      expect(out).toBe('first line\nsecond line\nthird line\nwritten while following\n');
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });

  it('kubectl exec runs the command kwok runs for the container, over WebSocket v5 translated to SPDY toward the kubelet', async () => {
    const echoed = await server.kubectl(['exec', 'web', '--', 'echo', 'hello', 'from', 'exec']);
    expect(echoed).toMatchObject({ code: 0, stdout: 'hello from exec\n' });
    // kubectl's WebSocket request is a GET (verb get): the switch is audited as the reference
    // audits it, the 101 starting the response and ending it. No SPDY POST (create) follows.
    const execEvents = () => auditEvents().filter((event) => event.requestURI.includes('command=hello'));
    // The server sees the connection close a moment after kubectl does.
    const switched = await waitFor(
      'the exec to be audited to its end',
      async () => (execEvents().length === 3 ? execEvents() : undefined),
      5_000,
    );
    expect(switched.map((event) => [event.verb, event.stage, event.responseStatus?.code])).toEqual([
      ['get', 'RequestReceived', undefined],
      ['get', 'ResponseStarted', 101],
      ['get', 'ResponseComplete', 101],
    ]);
    // kwok's local exec never closes a command's stdin: the command reads one line, not to the end.
    const piped = await server.kubectl(['exec', '-i', 'web', '--', 'sh', '-c', 'head -n1 | tr a-z A-Z; pwd'], {
      input: 'through stdin\n',
    });
    expect(piped).toMatchObject({ code: 0, stdout: `THROUGH STDIN\n${server.dataDir}\n` });
    const failing = await server.kubectl(['exec', 'web', '--', 'sh', '-c', 'exit 3']);
    // kwok reports a command's failure as an error of its own (an InternalError Status), not as the
    // command's exit status; the translator passes it on as the reference's does, as an internal
    // error of its own (client-go reads the kubelet's Status into a plain error).
    expect(failing).toMatchObject({
      code: 1,
      stderr:
        'error: Internal error occurred: Internal error occurred: error executing command in container: cmd wait: sh -c exit 3: exit status 3\n',
    });
    const verbose = await server.kubectl(['-v=7', 'exec', 'web', '--', 'true']);
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).not.toContain('RemoteCommand fallback');
    // Without a protocol switch there is nothing to join.
    const plain = await server.request('POST', `${NS}/pods/web/exec?command=ls&stdout=true`);
    expect(plain.json()).toMatchObject({ code: 400, reason: 'BadRequest', message: 'Upgrade request required' });
  });

  it('holds the kubelet back while a WebSocket exec client does not read, then delivers the rest', async () => {
    const total = 64 * 1024 * 1024;
    const url = `${server.url.replace(/^https/, 'wss')}${NS}/pods/web/exec?command=head&command=-c&command=${total}&command=/dev/zero&stdout=true`;
    const ws = new WebSocket(url, ['v5.channel.k8s.io'], server.credentials);
    let received = 0;
    let status = '';
    ws.on('message', (data: Buffer) => {
      if (data[0] === 1) received += data.length - 1;
      if (data[0] === 3) status = data.subarray(1).toString();
    });
    const closed = new Promise((resolve) => ws.on('close', resolve));
    await waitFor('the first output', async () => (received > 0 ? true : undefined), 20_000, 10);
    const before = process.memoryUsage().arrayBuffers;
    ws.pause();
    // The output stalls (the same from one look to the next) short of its end, and the server
    // (in this process) holds little of it: without backpressure it would take in all 64 MiB.
    let last = -1;
    await waitFor(
      'the output to stall',
      async () => {
        const now = process.memoryUsage().arrayBuffers;
        const stalled = Math.abs(now - last) < 256 * 1024;
        last = now;
        return stalled ? true : undefined;
      },
      20_000,
      500,
    );
    expect(received).toBeLessThan(total);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(24 * 1024 * 1024);
    ws.resume();
    await closed;
    expect({ received, status: JSON.parse(status) }).toEqual({
      received: total,
      status: { metadata: {}, status: 'Success' },
    });
  });

  it('kubectl exec over SPDY (WebSockets turned off) joins its connection to the kubelet', async () => {
    const spdy = await server.kubectl(['exec', 'web', '--', 'echo', 'over', 'spdy'], { env: SPDY_ONLY });
    expect(spdy).toMatchObject({ code: 0, stdout: 'over spdy\n' });
    const events = await waitFor(
      'the SPDY exec to be audited',
      async () => {
        const found = auditEvents().filter(
          (event) => event.requestURI.includes('command=spdy') && event.stage === 'ResponseComplete',
        );
        return found.length > 0 ? found : undefined;
      },
      5_000,
    );
    expect(events.map((event) => [event.verb, event.responseStatus?.code])).toEqual([['create', 101]]);
  });

  it("client-node's WebSocket exec (offering v5 to v1) is translated (v5)", async () => {
    const child = spawn(
      process.execPath,
      [
        join(__dirname, 'client-node-exec.mjs'),
        server.kubeconfig,
        'default',
        'web',
        'app',
        'echo',
        'over',
        'websocket',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out)).toEqual({
      stdout: 'over websocket\n',
      status: { metadata: {}, status: 'Success' },
      protocol: 'v5.channel.k8s.io',
    });
  });

  it("client-go's remotecommand executors work over WebSocket (translated) and SPDY (passed through)", async () => {
    const go = findGo();
    if (go === undefined) throw new Error('no Go toolchain: kwok needs one too');
    const binary = join(auditDir, 'remotecommand');
    buildGoProgram(go, './remotecommand', binary);
    for (const protocol of ['websocket', 'spdy']) {
      const args = [
        '-kubeconfig',
        server.kubeconfig,
        '-pod',
        'web',
        '-container',
        'app',
        '-protocol',
        protocol,
        '-stdin',
        `through client-go ${protocol}\n`,
        '--',
        'sh',
        '-c',
        `head -n1 | tr a-z A-Z; echo clientgo-${protocol} >&2`,
      ];
      const output = await new Promise<string>((resolve, reject) =>
        execFile(binary, args, { timeout: 60_000 }, (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
        ),
      );
      expect({ protocol, result: JSON.parse(output) }).toEqual({
        protocol,
        result: { stdout: `THROUGH CLIENT-GO ${protocol.toUpperCase()}\n`, stderr: `clientgo-${protocol}\n` },
      });
    }
    // The WebSocket executor's GET was switched by the server itself; the SPDY executor's POST was passed on.
    const runs = await waitFor(
      'both runs to be audited to their end',
      async () => {
        const found = auditEvents().filter(
          (event) => event.requestURI.includes('clientgo-') && event.stage === 'ResponseComplete',
        );
        return found.length === 2 ? found : undefined;
      },
      5_000,
    );
    expect(runs.map((event) => [event.verb, event.responseStatus?.code])).toEqual([
      ['get', 101],
      ['create', 101],
    ]);
  }, 300_000);

  it('kubectl attach streams what the container writes from then on (kwok: its log file)', async () => {
    const child = spawn(KUBECTL, ['--kubeconfig', server.kubeconfig, '-v=6', 'attach', 'web', '-c', 'app'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    try {
      await waitFor(
        'the switch to SPDY',
        async () => (err.includes('101 Switching Protocols') ? true : undefined),
        20_000,
      );
      // kwok starts reading at the file's end once it has the streams: write until a line comes through.
      let second = 10;
      await waitFor(
        'a line written while attached',
        async () => {
          if (out.includes('written while attached')) return true;
          appendFileSync(logFile, criLine(second++, 'written while attached'));
          return undefined;
        },
        20_000,
      );
      expect(out).toMatch(/^(written while attached\n)+$/);
      // A WebSocket GET, translated: no SPDY POST.
      expect(err).toContain('The subprotocol is v5.channel.k8s.io');
    } finally {
      child.kill();
    }
  });

  it('kubectl cp copies a file out of the container (tar through exec)', async () => {
    const target = join(auditDir, 'copied.log');
    // kwok runs the container's commands in its workDir: the file is the log file there.
    const copied = await server.kubectl(['cp', 'web:container.log', target]);
    expect(copied.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe(readFileSync(logFile, 'utf8'));
    const copies = await waitFor(
      'the copy to be audited to its end',
      async () => {
        const found = auditEvents().filter(
          (event) => event.requestURI.includes('command=tar') && event.stage === 'ResponseComplete',
        );
        return found.length > 0 ? found : undefined;
      },
      5_000,
    );
    expect(copies.map((event) => [event.verb, event.responseStatus?.code])).toEqual([['get', 101]]);
  });

  it('kubectl port-forward reaches the port kwok forwards to, its SPDY tunneled in a WebSocket', async () => {
    const local = await freePort();
    const child = spawn(KUBECTL, ['--kubeconfig', server.kubeconfig, 'port-forward', 'pod/web', `${local}:80`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor(
        'port-forward to listen',
        async () => (out.includes(`Forwarding from 127.0.0.1:${local}`) ? true : undefined),
        20_000,
      );
      const answer = await fetch(`http://127.0.0.1:${local}/through/the/tunnel`);
      expect(await answer.text()).toBe("forwarded to the test's server: /through/the/tunnel\n");
      // Half a megabyte there and back, more than any one buffer on the way holds.
      const body = Buffer.alloc(512 * 1024, 'capstan ').toString();
      const echoed = await fetch(`http://127.0.0.1:${local}/echo`, { method: 'POST', body });
      expect(await echoed.text()).toBe(`forwarded to the test's server: /echo\n${body}`);
    } finally {
      child.kill();
    }
    // kubectl's WebSocket GET was switched (101), and it asked for no SPDY POST.
    const forwards = await waitFor(
      'the port-forward to be audited to its end',
      async () => {
        const found = auditEvents().filter(
          (event) => event.objectRef?.subresource === 'portforward' && event.stage === 'ResponseComplete',
        );
        return found.length > 0 ? found : undefined;
      },
      5_000,
    );
    expect(forwards.map((event) => [event.verb, event.responseStatus?.code])).toEqual([['get', 101]]);
  });

  it('kubectl port-forward over SPDY (WebSockets turned off) still joins its connection to the kubelet', async () => {
    const local = await freePort();
    const child = spawn(KUBECTL, ['--kubeconfig', server.kubeconfig, 'port-forward', 'pod/web', `${local}:80`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...SPDY_ONLY },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor(
        'port-forward to listen',
        async () => (out.includes(`Forwarding from 127.0.0.1:${local}`) ? true : undefined),
        20_000,
      );
      const answer = await fetch(`http://127.0.0.1:${local}/over/spdy`);
      expect(await answer.text()).toBe("forwarded to the test's server: /over/spdy\n");
    } finally {
      child.kill();
    }
  });

  it('authorizes a WebSocket exec as get and a SPDY exec as create, as 1.34 does', async () => {
    const asBob = (args: readonly string[], env?: NodeJS.ProcessEnv) => server.kubectl(['--as=bob', ...args], { env });
    expect(
      (await server.kubectl(['create', 'role', 'pod-reader', '--verb=get', '--resource=pods,pods/exec'])).code,
    ).toBe(0);
    expect((await server.kubectl(['create', 'rolebinding', 'bob-reads', '--role=pod-reader', '--user=bob'])).code).toBe(
      0,
    );
    // The WebSocket request is a GET: get lets it through. (Requiring create for it too is 1.35's
    // AuthorizePodWebsocketUpgradeCreatePermission, a gate 1.34 does not have.)
    expect(await asBob(['exec', 'web', '--', 'echo', 'bob over websocket'])).toMatchObject({
      code: 0,
      stdout: 'bob over websocket\n',
    });
    // The SPDY request is a POST: create.
    expect(await asBob(['exec', 'web', '--', 'true'], SPDY_ONLY)).toMatchObject({
      code: 1,
      stderr:
        'Error from server (Forbidden): pods "web" is forbidden: User "bob" cannot create resource "pods/exec" in API group "" in the namespace "default"\n',
    });
    expect((await server.kubectl(['create', 'role', 'pod-exec', '--verb=create', '--resource=pods/exec'])).code).toBe(
      0,
    );
    expect((await server.kubectl(['create', 'rolebinding', 'bob-execs', '--role=pod-exec', '--user=bob'])).code).toBe(
      0,
    );
    expect(await asBob(['exec', 'web', '--', 'echo', 'bob was here'], SPDY_ONLY)).toMatchObject({
      code: 0,
      stdout: 'bob was here\n',
    });
  });

  it('refuses options as the reference validates them', async () => {
    const invalid = await server.request(
      'GET',
      `${NS}/pods/web/log?tailLines=-1&sinceSeconds=1&sinceTime=2020-01-01T00:00:00Z`,
    );
    expect(invalid.status).toBe(422);
    expect(invalid.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message:
        'PodLogOptions "web" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, []: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified]',
      details: {
        name: 'web',
        kind: 'PodLogOptions',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: -1: must be greater than or equal to 0',
            field: 'tailLines',
          },
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
            field: '[]',
          },
        ],
      },
    });
    const cases: [string, number, string][] = [
      ['limitBytes=0', 422, 'PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
      ['sinceSeconds=0', 422, 'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
      ['stream=All', 422, 'PodLogOptions "web" is invalid: stream: Forbidden: may not be specified'],
      ['tailLines=abc', 400, 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ['sinceSeconds=', 400, 'strconv.ParseInt: parsing "": invalid syntax'],
      ['sinceTime=bad', 400, 'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'],
      // Go's time.Parse knows each month's length.
      ['sinceTime=2024-02-30T00:00:00Z', 400, 'parsing time "2024-02-30T00:00:00Z": day out of range'],
    ];
    for (const [query, code, message] of cases) {
      const answer = await server.request('GET', `${NS}/pods/web/log?${query}`);
      expect({ query, code: answer.status, message: answer.json<{ message: string }>().message }).toEqual({
        query,
        code,
        message,
      });
    }
  });
});
