/**
 * Status writes of the apps/v1 workloads against what kube-apiserver 1.34.4 answered
 * (fixtures/workload-status-writes.json: per case, the workload's resource, then each status
 * write in turn, its status members set over what was stored, null where one was removed,
 * and its answer's causes). A status write is judged by the status rules alone: counts not
 * negative, none above the count it is part of, the collision count never lowered or removed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Write {
  readonly status: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded: Readonly<Record<string, { readonly writes: readonly Write[] }>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'workload-status-writes.json'), 'utf8'),
);

const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const selector = { matchLabels: { app: 'a' } };
/** Each case's workload, by resource, as it was created. */
const WORKLOADS: Readonly<Record<string, { kind: string; spec: Record<string, unknown> }>> = {
  statefulsets: { kind: 'StatefulSet', spec: { serviceName: 'svc', selector, template } },
  deployments: { kind: 'Deployment', spec: { selector, template } },
  replicasets: { kind: 'ReplicaSet', spec: { selector, template } },
  daemonsets: { kind: 'DaemonSet', spec: { selector, template } },
};

test.each(Object.entries(recorded))('%s', (id, { writes }) => {
  const resource = id.split('/')[0];
  const { kind, spec } = WORKLOADS[resource];
  const type = typeOf('apps', resource);
  const sent = { apiVersion: 'apps/v1', kind, metadata: { name: 'w', namespace: 'default' }, spec } as KubeObject;
  let stored = created(type, sent, {}).object;
  for (const { status, code, causes } of writes) {
    const write = updated(
      type,
      stored,
      (next) => {
        const members = { ...((next.status as Record<string, unknown> | undefined) ?? {}) };
        for (const [name, value] of Object.entries(status)) {
          if (value === null) delete members[name];
          else members[name] = value;
        }
        next.status = members;
      },
      {},
      'status',
    );
    expect(write.errors).toEqual(code < 300 ? [] : causes);
    stored = write.object;
  }
});
