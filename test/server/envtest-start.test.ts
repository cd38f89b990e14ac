/**
 * bin/kube-apiserver started the way controller-runtime's envtest starts an API server: from a
 * working directory of the caller's, on etcd, with envtest's flags and the files it writes into
 * `--cert-dir` first (an ECDSA P-256 serving pair of its own CA, a P-256 service-account
 * signer, the client CA). What envtest waits for, each checked: anonymous /healthz, the default
 * namespace soon after, ES256 service-account tokens of the issuer `https://127.0.0.1:<port>/`,
 * CRDs in discovery promptly; and nothing written outside --cert-dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf, type IssuedCertificate } from '../../server/pki/certificates';
import { ensureBuilt } from '../helpers/capstan-process';
import { envtestFlags } from '../helpers/envtest-flags';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { freePort } from '../helpers/ports';
import { httpsRequest, type Reply } from '../helpers/https-client';
import { waitUntil } from '../helpers/wait-for';

const KUBE_APISERVER = join(__dirname, '..', '..', 'bin', 'kube-apiserver');
/** envtest's limits: /healthz within 20 s, then the default namespace within 5 s. */
const HEALTHZ_WAIT_MS = 20_000;
const DEFAULT_NAMESPACE_WAIT_MS = 5_000;
/** envtest polls discovery every 100 ms for each CRD it installs. */
const CRD_DISCOVERY_WAIT_MS = 5_000;

jest.setTimeout(90_000);

let etcd: EtcdServer;
let root: string;

beforeAll(async () => {
  ensureBuilt();
  etcd = await startEtcd();
  root = mkdtempSync(join(tmpdir(), 'capstan-envtest-start-'));
});

afterAll(async () => {
  await etcd?.stop();
  rmSync(root, { recursive: true, force: true });
});

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts bin/kube-apiserver in `cwd` as envtest does, with `flags` after envtest's own. */
async function startAsEnvtest(cwd: string, certDir: string, flags: readonly string[]): Promise<Started> {
  const port = await freePort();
  const args = [...envtestFlags({ etcdServer: etcd.endpoints[0], certDir, port }), ...flags];
  const child = spawn(KUBE_APISERVER, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    port,
    url: `https://127.0.0.1:${port}`,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Polls `check` every 100 ms until it is true; the milliseconds it took, or a failure after `limitMs`. */
async function within(limitMs: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const began = Date.now();
  await waitUntil(what, () => check().catch(() => false), limitMs, 100);
  return Date.now() - began;
}

function writePem(path: string, pem: string): void {
  writeFileSync(path, pem, { mode: 0o640 });
}

/**
 * What envtest writes into --cert-dir before the start: its serving pair, its service-account
 * signer (a CA pair whose certificate verifies), and the CA of its users' client certificates;
 * and the admin's client certificate it gives its clients.
 */
async function writeEnvtestFiles(certDir: string): Promise<{ ca: IssuedCertificate; admin: IssuedCertificate }> {
  mkdirSync(certDir);
  const ca = await issueCa({ commonName: 'envtest-environment', validDays: 1 });
  const serving = await issueLeaf({
    ca,
    subject: 'CN=localhost, O=envtest',
    usage: 'server',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    validDays: 1,
  });
  writePem(join(certDir, 'apiserver.crt'), serving.certPem);
  writePem(join(certDir, 'apiserver.key'), serving.keyPem);
  const signer = await issueCa({ commonName: 'envtest-sa', validDays: 1 });
  writePem(join(certDir, 'sa-signer.crt'), signer.certPem);
  writePem(join(certDir, 'sa-signer.key'), signer.keyPem);
  writePem(join(certDir, 'client-cert-auth-ca.crt'), ca.certPem);
  const admin = await issueLeaf({ ca, subject: 'CN=admin, O=system:masters', usage: 'client', validDays: 1 });
  return { ca, admin };
}

function envtestFileFlags(certDir: string): string[] {
  return [
    `--service-account-key-file=${join(certDir, 'sa-signer.crt')}`,
    `--service-account-signing-key-file=${join(certDir, 'sa-signer.key')}`,
    `--client-ca-file=${join(certDir, 'client-cert-auth-ca.crt')}`,
  ];
}

/** A JSON request as envtest's admin. */
function adminCall(server: Started, identity: { ca: IssuedCertificate; admin: IssuedCertificate }, token?: string) {
  return (method: string, path: string, body?: unknown): Promise<Reply> =>
    httpsRequest({
      url: server.url + path,
      caPem: identity.ca.certPem,
      identity: token ? undefined : identity.admin,
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });
}

describe('bin/kube-apiserver as envtest starts it', () => {
  let cwd: string;
  let certDir: string;
  let ca: IssuedCertificate;
  let admin: IssuedCertificate;
  let server: Started;
  const call = (method: string, path: string, body?: unknown, token?: string): Promise<Reply> =>
    adminCall(server, { ca, admin }, token)(method, path, body);

  beforeAll(async () => {
    cwd = join(root, 'caller');
    certDir = join(root, 'envtest-certs');
    mkdirSync(cwd);
    ({ ca, admin } = await writeEnvtestFiles(certDir));
    server = await startAsEnvtest(cwd, certDir, envtestFileFlags(certDir));
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('answers anonymous /healthz with its serving pair, then has the default namespace within 5 s', async () => {
    // Anonymous and verified against envtest's CA: the pair in --cert-dir is the one served.
    await within(HEALTHZ_WAIT_MS, `anonymous /healthz\n${server.output()}`, async () => {
      const reply = await httpsRequest({ url: `${server.url}/healthz`, caPem: ca.certPem });
      return reply.status === 200 && reply.body === 'ok';
    });
    await within(
      DEFAULT_NAMESPACE_WAIT_MS,
      'the default namespace',
      async () => (await call('GET', '/api/v1/namespaces/default')).status === 200,
    );
  });

  it('takes cluster IPs from --service-cluster-ip-range', async () => {
    const kubernetes = await call('GET', '/api/v1/namespaces/default/services/kubernetes');
    expect(JSON.parse(kubernetes.body).spec.clusterIP).toBe('10.0.0.1');
    const created = await call('POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'in-range' },
      spec: { ports: [{ port: 80 }] },
    });
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body).spec.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
  });

  it('issues ES256 service-account tokens of the issuer it was given, and accepts them', async () => {
    const account = await call('POST', '/api/v1/namespaces/default/serviceaccounts', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'robot' },
    });
    expect(account.status).toBe(201);
    const requested = await call('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    expect(requested.status).toBe(201);
    const token: string = JSON.parse(requested.body).status.token;
    const [header, claims] = token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
    expect(header.alg).toBe('ES256');
    expect(claims.iss).toBe(`https://127.0.0.1:${server.port}/`);
    const review = await call(
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      token,
    );
    expect(review.status).toBe(201);
    expect(JSON.parse(review.body).status.userInfo.username).toBe('system:serviceaccount:default:robot');
    const discovery = await call('GET', '/.well-known/openid-configuration');
    expect(JSON.parse(discovery.body).issuer).toBe(`https://127.0.0.1:${server.port}/`);
  });

  it('serves a new CRD in discovery promptly', async () => {
    const created = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.envtest.example.com' },
      spec: {
        group: 'envtest.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const tookMs = await within(CRD_DISCOVERY_WAIT_MS, 'the CRD in discovery', async () => {
      const reply = await call('GET', '/apis/envtest.example.com/v1');
      return (
        reply.status === 200 &&
        JSON.parse(reply.body).resources.some((resource: { name: string }) => resource.name === 'widgets')
      );
    });
    expect(tookMs).toBeLessThan(2_000);
  });

  it('writes nothing at all: not outside --cert-dir, and not in it either, as the reference', async () => {
    expect(await server.stop()).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
    expect(readdirSync(certDir).sort()).toEqual([
      'apiserver.crt',
      'apiserver.key',
      'client-cert-auth-ca.crt',
      'sa-signer.crt',
      'sa-signer.key',
    ]);
  });
});

describe('--cert-dir without a serving pair', () => {
  it('makes apiserver.crt/apiserver.key there, with every other generated file, and serves them', async () => {
    const cwd = join(root, 'bare-caller');
    const certDir = join(root, 'bare-certs');
    mkdirSync(cwd);
    const server = await startAsEnvtest(cwd, certDir, ['--etcd-prefix=/bare']);
    try {
      await within(HEALTHZ_WAIT_MS, `the start\n${server.output()}`, async () =>
        /started in \d+ ms/.test(server.output()),
      );
      const caPem = readFileSync(join(certDir, 'ca.crt'), 'utf8');
      expect((await httpsRequest({ url: `${server.url}/healthz`, caPem })).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(readdirSync(cwd)).toEqual([]);
    expect(readdirSync(certDir).sort()).toEqual([
      'admin.crt',
      'admin.key',
      'admin.kubeconfig',
      'apiserver.crt',
      'apiserver.key',
      'ca.crt',
      'ca.key',
      'sa.key',
    ]);
  });
});

describe('--controllers under the kube-apiserver name', () => {
  it('runs namespace deletion and garbage collection when asked, as envtest users may', async () => {
    const cwd = join(root, 'controllers-caller');
    const certDir = join(root, 'controllers-certs');
    mkdirSync(cwd);
    const identity = await writeEnvtestFiles(certDir);
    const server = await startAsEnvtest(cwd, certDir, [
      ...envtestFileFlags(certDir),
      '--etcd-prefix=/controllers',
      '--controllers=namespace-controller,garbage-collector-controller',
    ]);
    try {
      const call = adminCall(server, identity);
      await within(
        HEALTHZ_WAIT_MS,
        `the default namespace\n${server.output()}`,
        async () => (await call('GET', '/api/v1/namespaces/default')).status === 200,
      );
      // Garbage collection: a ConfigMap owned by a deleted one goes.
      const owner = JSON.parse(
        (
          await call('POST', '/api/v1/namespaces/default/configmaps', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'owner' },
          })
        ).body,
      );
      const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }];
      expect(
        (
          await call('POST', '/api/v1/namespaces/default/configmaps', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'owned', ownerReferences },
          })
        ).status,
      ).toBe(201);
      expect((await call('DELETE', '/api/v1/namespaces/default/configmaps/owner')).status).toBe(200);
      await within(
        20_000,
        'the owned ConfigMap collected',
        async () => (await call('GET', '/api/v1/namespaces/default/configmaps/owned')).status === 404,
      );
      // Namespace deletion: the namespace and what is in it go.
      expect(
        (
          await call('POST', '/api/v1/namespaces', {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: 'doomed' },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await call('POST', '/api/v1/namespaces/doomed/configmaps', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'inside' },
          })
        ).status,
      ).toBe(201);
      expect((await call('DELETE', '/api/v1/namespaces/doomed')).status).toBe(200);
      await within(
        20_000,
        'the namespace deleted',
        async () => (await call('GET', '/api/v1/namespaces/doomed')).status === 404,
      );
      // Without the service-account controller, still no default ServiceAccount appears.
      expect((await call('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status).toBe(404);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
