/**
 * StatefulSet updates against what kube-apiserver 1.34.4 answered (fixtures/stateful-set-update.json:
 * the members an update of one StatefulSet changed, null where it removed one, and the answer's
 * causes, each cut at its first line). Only replicas, ordinals, template, updateStrategy,
 * revisionHistoryLimit, persistentVolumeClaimRetentionPolicy and minReadySeconds may change, as
 * Go compares them (a claim template's size written another way, `1073741824` for `1Gi`, is no change); the service
 * name and the claim templates are not checked again; the template's labels and annotations
 * are checked twice, once as the StatefulSet's own rule and once as the pod template's. Over a
 * stored StatefulSet that breaks a rule (its container's name, written into etcd directly) the
 * pod template's own checks are skipped, the rest kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { typeOf } from './gated-fields/write-path';
import { recordedUpdateCauses } from './recorded-update';

interface Case {
  /** Where present, the stored object's members as written into etcd directly, as no server lets in. */
  readonly stored?: Record<string, unknown>;
  readonly changed: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded: Readonly<Record<string, Case>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'stateful-set-update.json'), 'utf8'),
);

/** The StatefulSet every case was made from. */
const statefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 's', namespace: 'default' },
  spec: {
    serviceName: 'svc',
    selector: { matchLabels: { app: 'a' } },
    template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    volumeClaimTemplates: [
      {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ],
  },
} as KubeObject;

test.each(Object.entries(recorded))('%s', (_id, { stored, changed, code, causes }) => {
  expect(recordedUpdateCauses(typeOf('apps', 'statefulsets'), statefulSet, { storedAs: stored, changed })).toEqual(
    code < 300 ? [] : causes,
  );
});
