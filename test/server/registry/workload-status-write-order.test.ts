/**
 * Status writes of the apps/v1 workloads breaking several rules at once, with metadata that
 * breaks its own, through the generic store as kube-apiserver 1.34.4 answered them
 * (fixtures/workload-status-write-order.json: per case, the workload's resource, then each
 * status write in turn, its status members set over what was stored, null where one was
 * removed, the metadata it changed, and its answer). The store judges the metadata twice before
 * the kind's rules; a StatefulSet's rules judge it again between its counts and its collision
 * count, a Deployment's and a DaemonSet's before their counts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

interface Write {
  readonly status: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded: Readonly<Record<string, { readonly writes: readonly Write[] }>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'workload-status-write-order.json'), 'utf8'),
);

const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const selector = { matchLabels: { app: 'a' } };
/** Each case's workload, by resource, as it was created. */
const WORKLOADS: Readonly<Record<string, { kind: string; spec: Record<string, unknown> }>> = {
  statefulsets: { kind: 'StatefulSet', spec: { serviceName: 'svc', selector, template } },
  deployments: { kind: 'Deployment', spec: { selector, template } },
  daemonsets: { kind: 'DaemonSet', spec: { selector, template } },
};

let testStore: TestStore;
let api: ServedApi;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor);
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

async function send(method: string, path: string, body: unknown): Promise<{ code: number; body: KubeObject }> {
  const response = await fetch(`${api.base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { code: response.status, body: (await response.json()) as KubeObject };
}

function causesOf(status: KubeObject): string[] {
  const details = status.details as { causes?: { field: string; message: string }[] } | undefined;
  return (details?.causes ?? []).map((cause) => `${cause.field}: ${cause.message}`);
}

test.each(Object.entries(recorded).map(([id, c], i) => [id, i, c] as const))('%s', async (id, i, { writes }) => {
  const resource = id.split('/')[0];
  const { kind, spec } = WORKLOADS[resource];
  const base = `/apis/apps/v1/namespaces/default/${resource}`;
  const name = `w${i}`;
  let stored = (await send('POST', base, { apiVersion: 'apps/v1', kind, metadata: { name }, spec })).body;
  for (const write of writes) {
    const next = structuredClone(stored);
    const members = { ...((next.status as Record<string, unknown> | undefined) ?? {}) };
    for (const [member, value] of Object.entries(write.status)) {
      if (value === null) delete members[member];
      else members[member] = value;
    }
    next.status = members;
    Object.assign(next.metadata, write.metadata ?? {});
    const answer = await send('PUT', `${base}/${name}/status`, next);
    expect({ code: answer.code, causes: causesOf(answer.body) }).toEqual({ code: write.code, causes: write.causes });
    if (answer.code === 200) stored = answer.body;
  }
});
