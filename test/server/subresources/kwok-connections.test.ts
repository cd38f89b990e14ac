/**
 * `kubectl logs` (1.33) against a replica in this process whose node is played by kwok, which
 * serves the kubelet API on loopback and a container's log from a file (its ClusterLogs
 * configuration): the log as written, its options passed on to the kubelet, `logs -f` seeing
 * lines appended while it follows, and the reference's answers to options it refuses; and
 * `kubectl exec`, `attach`, `cp` and `port-forward`, their SPDY connections joined to kwok's
 * (its ClusterExec runs a local command, ClusterAttach follows a file, ClusterPortForward reaches
 * a server of this test), exec only with `create` on pods/exec, and audited as the reference
 * audits a protocol switch.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { freePort } from '../../helpers/ports';
import { KUBECTL } from '../../helpers/server';
import { addSimulatedNodes, buildKwok, startKwok, type Kwok } from '../../cluster/reference-controllers';
import { waitFor } from '../../helpers/wait-for';

const NS = '/api/v1/namespaces/default';
const JSON_BODY = { 'Content-Type': 'application/json' };
const NODE = 'kwok-node-0';

/** A line as a container runtime writes it (CRI log format), which kwok reads back. */
const criLine = (second: number, text: string) => `2024-01-01T00:00:${String(second).padStart(2, '0')}.000000000Z stdout F ${text}\n`;


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
    writeFileSync(join(auditDir, 'policy.yaml'), JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata', resources: [{ group: '', resources: ['pods/exec'] }] }, { level: 'None' }] }));
    server = await startInProcessServer([
      '--disable-admission-plugins', 'ServiceAccount', '--kubelet-preferred-address-types=InternalIP',
      `--audit-policy-file=${join(auditDir, 'policy.yaml')}`, `--audit-log-path=${join(auditDir, 'audit.log')}`,
    ]);
    logFile = join(server.dataDir, 'container.log');
    writeFileSync(logFile, criLine(1, 'first line') + criLine(2, 'second line') + criLine(3, 'third line'));
    const logsConfig = join(server.dataDir, 'kwok-logs.yaml');
    writeFileSync(
      logsConfig,
      JSON.stringify({ apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'ClusterLogs', metadata: { name: 'logs' }, spec: { selector: { matchNamespaces: ['default'] }, logs: [{ containers: ['app'], logsFile: logFile, follow: true }] } }),
    );
    const execConfig = join(server.dataDir, 'kwok-exec.yaml');
    writeFileSync(
      execConfig,
      JSON.stringify({ apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'ClusterExec', metadata: { name: 'exec' }, spec: { selector: { matchNamespaces: ['default'] }, execs: [{ containers: ['app'], local: { workDir: server.dataDir } }] } }),
    );
    const attachConfig = join(server.dataDir, 'kwok-attach.yaml');
    writeFileSync(
      attachConfig,
      JSON.stringify({ apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'ClusterAttach', metadata: { name: 'attach' }, spec: { selector: { matchNamespaces: ['default'] }, attaches: [{ containers: ['app'], logsFile: logFile }] } }),
    );
    backend = createServer((req, res) => {
      req.resume();
      res.end(`forwarded to the test's server: ${req.url}\n`);
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const forwardConfig = join(server.dataDir, 'kwok-forward.yaml');
    writeFileSync(
      forwardConfig,
      JSON.stringify({
        apiVersion: 'kwok.x-k8s.io/v1alpha1', kind: 'ClusterPortForward', metadata: { name: 'forward' },
        spec: { selector: { matchNamespaces: ['default'] }, forwards: [{ ports: [80], target: { address: '127.0.0.1', port: (backend.address() as AddressInfo).port } }] },
      }),
    );
    const port = await freePort();
    kwok = startKwok(server.kubeconfig, [`--config=${logsConfig}`, `--config=${execConfig}`, `--config=${forwardConfig}`, `--config=${attachConfig}`, `--server-address=127.0.0.1:${port}`, '--node-ip=127.0.0.1', `--node-port=${port}`]);
    await addSimulatedNodes(server, [NODE], 60_000);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: NODE, containers: [{ name: 'app', image: 'busybox' }] } };
    expect((await server.request('POST', `${NS}/pods`, { body: JSON.stringify(pod), headers: JSON_BODY })).status).toBe(201);
    // kwok reports the kubelet's port once it has taken the node on.
    await waitFor('the node to report its kubelet port', async () => {
      const node = (await server.request('GET', `/api/v1/nodes/${NODE}`)).json<{ status?: { daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } }>();
      return node.status?.daemonEndpoints?.kubeletEndpoint?.Port === port ? true : undefined;
    });
  }, 30 * 60_000);

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
    expect({ status: limited.status, type: limited.headers['content-type'], body: limited.body }).toEqual({ status: 200, type: 'text/plain', body: 'first' });
  });

  it('kubectl logs -f follows lines as they are written', async () => {
    const child = spawn(KUBECTL, ['--kubeconfig', server.kubeconfig, 'logs', '-f', 'web'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor('the first lines', async () => (out.includes('third line') ? true : undefined), 20_000);
      appendFileSync(logFile, criLine(4, 'written while following'));
      await waitFor('the appended line', async () => (out.includes('written while following') ? true : undefined), 20_000);
      expect(out).toBe('first line\nsecond line\nthird line\nwritten while following\n');
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });

  it('kubectl exec runs the command kwok runs for the container, stdin and stdout joined through the server', async () => {
    const echoed = await server.kubectl(['exec', 'web', '--', 'echo', 'hello', 'from', 'exec']);
    expect(echoed).toMatchObject({ code: 0, stdout: 'hello from exec\n' });
    // The switch is audited as the reference audits it: the 101 starts the response and ends it.
    type Event = { stage: string; verb: string; requestURI: string; responseStatus?: { code: number } };
    const execEvents = () => readFileSync(join(auditDir, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Event).filter((event) => event.verb === 'create' && event.requestURI.includes('command=hello'));
    // The server sees the connection close a moment after kubectl does.
    const switched = await waitFor('the exec to be audited to its end', async () => (execEvents().length === 3 ? execEvents() : undefined), 5_000);
    expect(switched.map((event) => [event.stage, event.responseStatus?.code])).toEqual([['RequestReceived', undefined], ['ResponseStarted', 101], ['ResponseComplete', 101]]);
    // kwok's local exec never closes a command's stdin: the command reads one line, not to the end.
    const piped = await server.kubectl(['exec', '-i', 'web', '--', 'sh', '-c', 'head -n1 | tr a-z A-Z; pwd'], { input: 'through stdin\n' });
    expect(piped).toMatchObject({ code: 0, stdout: `THROUGH STDIN\n${server.dataDir}\n` });
    const failing = await server.kubectl(['exec', 'web', '--', 'sh', '-c', 'exit 3']);
    // kwok reports a command's failure as an error of its own, not as the command's exit status.
    expect(failing).toMatchObject({ code: 1, stderr: 'error: Internal error occurred: error executing command in container: cmd wait: sh -c exit 3: exit status 3\n' });
    // kubectl asks WebSocket v5 first, which is refused (not translated to SPDY), and falls back to SPDY.
    const verbose = await server.kubectl(['-v=7', 'exec', 'web', '--', 'true']);
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toContain('RemoteCommand fallback: unable to upgrade streaming request: capstan does not translate the WebSocket protocol v5.channel.k8s.io');
    // Without a protocol switch there is nothing to join.
    const plain = await server.request('POST', `${NS}/pods/web/exec?command=ls&stdout=true`);
    expect(plain.json()).toMatchObject({ code: 400, reason: 'BadRequest', message: 'Upgrade request required' });
  });

  it("client-node's WebSocket exec reaches the kubelet with a protocol it speaks (v4: v5 is taken out)", async () => {
    const child = spawn(process.execPath, [join(__dirname, 'client-node-exec.mjs'), server.kubeconfig, 'default', 'web', 'app', 'echo', 'over', 'websocket'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(JSON.parse(out)).toEqual({ stdout: 'over websocket\n', status: { status: 'Success' }, protocol: 'v4.channel.k8s.io' });
  });

  it('kubectl attach streams what the container writes from then on (kwok: its log file)', async () => {
    const child = spawn(KUBECTL, ['--kubeconfig', server.kubeconfig, '-v=6', 'attach', 'web', '-c', 'app'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    try {
      await waitFor('the switch to SPDY', async () => (err.includes('101 Switching Protocols') ? true : undefined), 20_000);
      // kwok starts reading at the file's end once it has the streams: write until a line comes through.
      let second = 10;
      await waitFor('a line written while attached', async () => {
        if (out.includes('written while attached')) return true;
        appendFileSync(logFile, criLine(second++, 'written while attached'));
        return undefined;
      }, 20_000);
      expect(out).toMatch(/^(written while attached\n)+$/);
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
  });

  it('kubectl port-forward reaches the port kwok forwards to', async () => {
    const local = await freePort();
    const child = spawn(KUBECTL, ['--kubeconfig', server.kubeconfig, 'port-forward', 'pod/web', `${local}:80`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitFor('port-forward to listen', async () => (out.includes(`Forwarding from 127.0.0.1:${local}`) ? true : undefined), 20_000);
      const answer = await fetch(`http://127.0.0.1:${local}/through/the/tunnel`);
      expect(await answer.text()).toBe("forwarded to the test's server: /through/the/tunnel\n");
    } finally {
      child.kill();
    }
  });

  it('lets exec through only with create on pods/exec', async () => {
    const asBob = (args: readonly string[]) => server.kubectl(['--as=bob', ...args]);
    expect((await server.kubectl(['create', 'role', 'pod-reader', '--verb=get', '--resource=pods,pods/exec'])).code).toBe(0);
    expect((await server.kubectl(['create', 'rolebinding', 'bob-reads', '--role=pod-reader', '--user=bob'])).code).toBe(0);
    // get lets the WebSocket request through authorization; the SPDY one is a POST: create.
    expect(await asBob(['exec', 'web', '--', 'true'])).toMatchObject({
      code: 1,
      stderr: 'Error from server (Forbidden): pods "web" is forbidden: User "bob" cannot create resource "pods/exec" in API group "" in the namespace "default"\n',
    });
    expect((await server.kubectl(['create', 'role', 'pod-exec', '--verb=create', '--resource=pods/exec'])).code).toBe(0);
    expect((await server.kubectl(['create', 'rolebinding', 'bob-execs', '--role=pod-exec', '--user=bob'])).code).toBe(0);
    expect(await asBob(['exec', 'web', '--', 'echo', 'bob was here'])).toMatchObject({ code: 0, stdout: 'bob was here\n' });
  });

  it('refuses options as the reference validates them', async () => {
    const invalid = await server.request('GET', `${NS}/pods/web/log?tailLines=-1&sinceSeconds=1&sinceTime=2020-01-01T00:00:00Z`);
    expect(invalid.status).toBe(422);
    expect(invalid.json()).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: 'PodLogOptions "web" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, []: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified]',
      details: {
        name: 'web', kind: 'PodLogOptions',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'tailLines' },
          { reason: 'FieldValueForbidden', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified', field: '[]' },
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
    ];
    for (const [query, code, message] of cases) {
      const answer = await server.request('GET', `${NS}/pods/web/log?${query}`);
      expect({ query, code: answer.status, message: answer.json<{ message: string }>().message }).toEqual({ query, code, message });
    }
  });
});
