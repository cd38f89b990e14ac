/**
 * The audit webhook backend against real HTTPS receivers the test serves (client certificates
 * required): events arrive as audit.k8s.io/v1 EventLists in batches; a receiver that never
 * answers slows no request, and the events its full buffer cannot take are dropped and counted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf } from '../../server/pki/certificates';
import { startServer, type TestServer } from '../helpers/server';
import { startWebhookServer, type WebhookServer } from '../server/authz/webhook-server';
import { retryUntil } from '../helpers/wait-for';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz", "/healthz*", "/livez*", "/metrics"]
- level: Metadata
`;

interface EventList {
  readonly kind: string;
  readonly apiVersion: string;
  readonly items: { auditID: string; stage: string; verb: string; objectRef?: { resource?: string } }[];
}

function metricValue(metrics: string, pattern: RegExp): number {
  return Number(pattern.exec(metrics)?.[1] ?? 0);
}

describe('batches to a webhook', () => {
  let dir: string;
  let receiver: WebhookServer;
  let server: TestServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-audit-webhook-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    // Answers 200 to whatever it is sent, and keeps the bodies.
    receiver = await startWebhookServer(() => ({ allowed: true }));
    server = await startServer({
      flags: [
        `--audit-policy-file=${join(dir, 'policy.yaml')}`,
        `--audit-webhook-config-file=${receiver.kubeconfigFor(dir)}`,
        '--audit-webhook-batch-max-size=5',
        '--audit-webhook-batch-max-wait=200ms',
      ],
    });
  });

  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every event arrives, in EventLists of at most the batch size', async () => {
    for (let i = 0; i < 6; i++) expect((await server.kubectl(['get', 'configmaps', '-n', 'kube-system'])).code).toBe(0);
    const configMapLists = (lists: EventList[]) =>
      lists
        .flatMap((list) => list.items)
        .filter((event) => event.objectRef?.resource === 'configmaps' && event.verb === 'list');
    const lists = await retryUntil(
      () => receiver.reviews as unknown as EventList[],
      (received) => configMapLists(received).length >= 12,
      5_000,
      50,
    );
    for (const list of lists) {
      expect(list).toMatchObject({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1' });
      expect(list.items.length).toBeGreaterThan(0);
      expect(list.items.length).toBeLessThanOrEqual(5);
    }
    const events = lists
      .flatMap((list) => list.items)
      .filter((event) => event.objectRef?.resource === 'configmaps' && event.verb === 'list');
    expect(events).toHaveLength(12);
    // Each request's two stages, under one ID each.
    expect(new Set(events.map((event) => event.auditID)).size).toBe(6);
    expect(lists.some((list) => list.items.length > 1)).toBe(true);
  });
});

describe('a webhook that never answers', () => {
  let dir: string;
  let silent: Server;
  let server: TestServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-audit-dead-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    const ca = await issueCa({ commonName: 'silent-ca', validDays: 1 });
    const serving = await issueLeaf({
      ca,
      subject: 'CN=silent',
      usage: 'server',
      ipAddresses: ['127.0.0.1'],
      validDays: 1,
    });
    const client = await issueLeaf({ ca, subject: 'CN=kube-apiserver', usage: 'client', validDays: 1 });
    // Takes the request and never answers.
    silent = createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
      () => {},
    );
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const kubeconfig = join(dir, 'silent.kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'silent',
            cluster: {
              server: `https://127.0.0.1:${(silent.address() as AddressInfo).port}/audit`,
              'certificate-authority-data': b64(ca.certPem),
            },
          },
        ],
        users: [
          {
            name: 'apiserver',
            user: { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) },
          },
        ],
        contexts: [{ name: 'silent', context: { cluster: 'silent', user: 'apiserver' } }],
        'current-context': 'silent',
      }),
    );
    server = await startServer({
      flags: [
        `--audit-policy-file=${join(dir, 'policy.yaml')}`,
        `--audit-webhook-config-file=${kubeconfig}`,
        '--audit-webhook-batch-buffer-size=10',
        '--audit-webhook-batch-max-size=1',
        '--audit-webhook-batch-max-wait=0s',
        // The log, next to it, still gets every event.
        `--audit-log-path=${join(dir, 'audit.log')}`,
      ],
    });
  });

  afterAll(async () => {
    await server?.stop();
    silent?.closeAllConnections();
    await new Promise((resolve) => silent?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  test('requests go at full speed; what the buffer cannot take is dropped and counted', async () => {
    const latencies: number[] = [];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      const answer = await server.request('GET', '/api/v1/namespaces/default/configmaps', {
        headers: { 'Audit-ID': `dead-${i}` },
      });
      latencies.push(performance.now() - started);
      expect(answer.status).toBe(200);
    }
    // Far below the webhook's 30 s request timeout, let alone its retries.
    expect(Math.max(...latencies)).toBeLessThan(1000);

    const metrics = (await server.request('GET', '/metrics')).body;
    // 200 events: one in flight, ten waiting, the rest dropped.
    expect(metricValue(metrics, /^apiserver_audit_event_total (\d+)/m)).toBeGreaterThanOrEqual(200);
    expect(metricValue(metrics, /^apiserver_audit_error_total\{plugin="buffered"\} (\d+)/m)).toBeGreaterThanOrEqual(
      200 - 11,
    );

    const logged = await retryUntil(
      () =>
        readFileSync(join(dir, 'audit.log'), 'utf8')
          .split('\n')
          .filter((line) => line.includes('"auditID":"dead-')).length,
      (count) => count >= 200,
      5_000,
      50,
    );
    expect(logged).toBe(200);
  });
});
