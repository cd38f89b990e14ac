import { serverSideApply, type ApplyRequest } from '../../../server/apply/apply';
import { rootSchemaNode } from '../../../server/apply/schema-node';
import { managedFieldsAfterUpdate, requestedManagedFields } from '../../../server/fieldmanager/managed-fields';
import { schemaData } from '../../../server/schema/definitions';
import { copyJson } from '../../../server/json/value';
import { StatusError } from '../../../server/status/status-error';
import type { Definitions } from '../../../server/validation/decode';
import type { KubeObject } from '../../../api/objects';

import type { ManagedFieldsEntry } from '../../../server/fieldmanager/managed-fields-entry';
const definitions = schemaData().definitions as unknown as Definitions;
const deploymentSchema = rootSchemaNode(definitions, 'io.k8s.api.apps.v1.Deployment');

const T1 = new Date('2025-03-01T10:00:00Z');
const T2 = new Date('2025-03-01T10:00:05Z');
const T3 = new Date('2025-03-01T10:00:09Z');

const NGINX_KEY = 'k:{"name":"nginx"}';
const PORT_80 = 'k:{"containerPort":80,"protocol":"TCP"}';

function deployment(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', ...metadata },
    spec,
  };
}

function baseSpec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
    },
    ...extra,
  };
}

function apply(
  options: Partial<ApplyRequest> & { live: KubeObject | undefined; config: Record<string, unknown>; manager: string },
): KubeObject {
  return serverSideApply({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    force: false,
    now: T1,
    schema: deploymentSchema,
    ...options,
  }).object;
}

function conflictOf(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error('expected a StatusError');
}

/** A non-apply write (PUT) by `manager`, through the handlers' managedFields bookkeeping. */
/** A non-apply write of `next` over `live` (undefined: a create). */
function update(live: KubeObject | undefined, next: KubeObject, manager: string, now: Date): KubeObject {
  const strip = (object: KubeObject) => ({ ...object, metadata: { ...object.metadata, managedFields: undefined } });
  const requested = requestedManagedFields(
    next.metadata.managedFields,
    live?.metadata.managedFields as ManagedFieldsEntry[] | undefined,
  );
  const entries = managedFieldsAfterUpdate({
    previous: live === undefined ? undefined : strip(live),
    managedFields: requested,
    next: strip(next),
    manager,
    apiVersion: 'apps/v1',
    now,
    schema: {
      definitions,
      schema: { node: definitions['io.k8s.api.apps.v1.Deployment'], definition: 'io.k8s.api.apps.v1.Deployment' },
    },
  });
  const out = copyJson(next);
  if (entries.length > 0) out.metadata.managedFields = entries;
  else delete out.metadata.managedFields;
  return out;
}

const kubectlFields = {
  'f:spec': {
    'f:replicas': {},
    'f:selector': {},
    'f:template': {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          [NGINX_KEY]: {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { [PORT_80]: { '.': {}, 'f:containerPort': {} } },
          },
        },
      },
    },
  },
};

describe('server-side apply', () => {
  test('create through apply: the object is the configuration, the applier owns what it set', () => {
    const object = apply({ live: undefined, config: deployment(baseSpec()), manager: 'kubectl' });
    expect(object).toEqual({
      ...deployment(baseSpec()),
      metadata: {
        name: 'web',
        namespace: 'default',
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'apps/v1',
            time: '2025-03-01T10:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: kubectlFields,
          },
        ],
      },
    });
    // The reference writes FieldsV1 keys in order: `.` first, then fields by name.
    const container = (object.metadata.managedFields as ManagedFieldsEntry[])[0].fieldsV1!['f:spec']['f:template'][
      'f:spec'
    ]['f:containers'][NGINX_KEY];
    expect(Object.keys(container)).toEqual(['.', 'f:image', 'f:name', 'f:ports']);
  });

  test('a conflicting apply by another manager is a 409 naming the manager and the field', () => {
    const live = apply({ live: undefined, config: deployment(baseSpec()), manager: 'kubectl' });
    const error = conflictOf(() => apply({ live, config: deployment({ replicas: 5 }), manager: 'scaler', now: T2 }));
    expect(error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas',
      reason: 'Conflict',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.replicas' }],
      },
      code: 409,
    });
  });

  test('several conflicts: one cause per field and manager, message grouped by manager', () => {
    const live = apply({ live: undefined, config: deployment(baseSpec()), manager: 'kubectl' });
    const config = deployment({
      replicas: 5,
      template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } },
    });
    const error = conflictOf(() => apply({ live, config, manager: 'other', now: T2 }));
    expect(error.status.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "kubectl":\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image',
    );
    expect(error.status.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.replicas' },
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "kubectl"',
        field: '.spec.template.spec.containers[name="nginx"].image',
      },
    ]);
  });

  test('force takes the field: the value changes and the other manager loses it', () => {
    const live = apply({ live: undefined, config: deployment(baseSpec()), manager: 'kubectl' });
    const object = apply({ live, config: deployment({ replicas: 5 }), manager: 'scaler', force: true, now: T2 });
    expect((object.spec as { replicas: number }).replicas).toBe(5);
    const { 'f:replicas': _taken, ...kubectlRest } = kubectlFields['f:spec'];
    expect(object.metadata.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2025-03-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': kubectlRest },
      },
      {
        manager: 'scaler',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2025-03-01T10:00:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ]);
  });

  test('the same value shares ownership; each sharer may drop it without removing the value', () => {
    const live = apply({ live: undefined, config: deployment(baseSpec()), manager: 'kubectl' });
    const shared = apply({ live, config: deployment({ replicas: 2 }), manager: 'scaler', now: T2 });
    const entries = shared.metadata.managedFields as ManagedFieldsEntry[];
    // The object did not change, so the reference stamps no time on the new sharer's entry,
    // and an entry without a time sorts first.
    expect(entries.map((entry) => [entry.manager, entry.time, entry.fieldsV1!['f:spec']['f:replicas']])).toEqual([
      ['scaler', undefined, {}],
      ['kubectl', '2025-03-01T10:00:00Z', {}],
    ]);
    const { replicas: _dropped, ...withoutReplicas } = baseSpec();
    const released = apply({ live: shared, config: deployment(withoutReplicas), manager: 'kubectl', now: T3 });
    expect((released.spec as { replicas?: number }).replicas).toBe(2);
    const after = released.metadata.managedFields as ManagedFieldsEntry[];
    expect(after.find((entry) => entry.manager === 'kubectl')!.fieldsV1!['f:spec']['f:replicas']).toBeUndefined();
    expect(after.find((entry) => entry.manager === 'scaler')!.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  test('fields dropped from the configuration and owned by nobody else are removed', () => {
    const spec = baseSpec();
    (spec.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers[0].env = [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ];
    const live = apply({
      live: undefined,
      config: deployment(spec, { labels: { team: 'x', tier: 'web' } }),
      manager: 'kubectl',
    });
    const edited = deployment(
      {
        ...baseSpec({ replicas: undefined }),
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] },
            ],
          },
        },
      },
      {},
    );
    delete (edited.spec as Record<string, unknown>).replicas;
    const object = apply({ live, config: edited, manager: 'kubectl', now: T2 });
    expect(object.spec).toEqual({
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] },
          ],
        },
      },
    });
    // The labels map left empty goes, as the reference's serialization drops empty maps.
    expect(object.metadata.labels).toBeUndefined();
  });

  test('an Update takes ownership, and a later apply of a different value conflicts with it', () => {
    const live = apply({ live: undefined, config: deployment(baseSpec()), manager: 'kubectl' });
    const edited = copyJson(live);
    (edited.spec as { replicas: number }).replicas = 7;
    const updated = update(live, edited, 'kube-controller', T2);
    const kubectl = (updated.metadata.managedFields as ManagedFieldsEntry[]).find(
      (entry) => entry.manager === 'kubectl',
    )!;
    expect(kubectl.fieldsV1!['f:spec']['f:replicas']).toBeUndefined();
    const error = conflictOf(() =>
      apply({ live: updated, config: deployment(baseSpec()), manager: 'kubectl', now: T3 }),
    );
    expect(error.status.message).toBe(
      'Apply failed with 1 conflict: conflict with "kube-controller" using apps/v1: .spec.replicas',
    );
  });

  test('managedFields in the body and a wrong kind are rejected as the reference words it', () => {
    const withManaged = deployment(baseSpec(), { managedFields: [] });
    expect(conflictOf(() => apply({ live: undefined, config: withManaged, manager: 'm' })).status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'metadata.managedFields must be nil',
    });
    const wrongKind = { ...deployment(baseSpec()), kind: 'StatefulSet' };
    expect(conflictOf(() => apply({ live: undefined, config: wrongKind, manager: 'm' })).status.message).toBe(
      'invalid object type: apps/v1, Kind=StatefulSet',
    );
  });

  test('list types: atomic lists are owned and replaced whole, sets by value, maps by key', () => {
    const spec = baseSpec();
    (spec.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers[0].args = ['a', 'b'];
    const live = apply({ live: undefined, config: deployment(spec, { finalizers: ['x/one'] }), manager: 'one' });
    const object = apply({
      live,
      config: deployment(
        {
          template: {
            spec: {
              containers: [
                { name: 'nginx', args: ['c'] },
                { name: 'sidecar', image: 'busybox' },
              ],
            },
          },
        },
        { finalizers: ['x/two'] },
      ),
      manager: 'two',
      force: true,
      now: T2,
    });
    expect(object.metadata.finalizers).toEqual(['x/one', 'x/two']);
    const containers = (object.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec
      .containers;
    expect(containers).toEqual([
      { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }], args: ['c'] },
      { name: 'sidecar', image: 'busybox' },
    ]);
    const two = (object.metadata.managedFields as ManagedFieldsEntry[]).find((entry) => entry.manager === 'two')!;
    expect(two.fieldsV1).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"x/two"': {} } },
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': {
              [NGINX_KEY]: { '.': {}, 'f:args': {}, 'f:name': {} },
              'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} },
            },
          },
        },
      },
    });
  });

  test('an atomic map (label selector) is replaced whole, not merged', () => {
    const live = apply({
      live: undefined,
      config: deployment(baseSpec({ selector: { matchLabels: { app: 'web', tier: 'a' } } })),
      manager: 'kubectl',
    });
    const object = apply({
      live,
      config: deployment(baseSpec({ selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } })),
      manager: 'kubectl',
      now: T2,
    });
    expect((object.spec as { selector: unknown }).selector).toEqual({
      matchExpressions: [{ key: 'app', operator: 'Exists' }],
    });
  });

  test('status subresource: the applier owns all but its reset fields, with subresource in its entry', () => {
    const live = apply({ live: undefined, config: deployment(baseSpec()), manager: 'kubectl' });
    const object = serverSideApply({
      live,
      config: {
        ...deployment({ replicas: 9 }, { labels: { a: 'b' }, annotations: { c: 'd' } }),
        status: { replicas: 2, readyReplicas: 1 },
      },
      manager: 'controller',
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      subresource: 'status',
      force: false,
      now: T2,
      schema: deploymentSchema,
      // A Deployment's status strategy resets its spec and labels.
      scope: { allBut: [['spec'], ['metadata', 'labels']] },
    }).object;
    const entry = (object.metadata.managedFields as ManagedFieldsEntry[]).find(
      (candidate) => candidate.manager === 'controller',
    );
    expect(entry).toEqual({
      manager: 'controller',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      time: '2025-03-01T10:00:05Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:annotations': { 'f:c': {} } },
        'f:status': { 'f:readyReplicas': {}, 'f:replicas': {} },
      },
      subresource: 'status',
    });
  });

  test('an object nobody tracked: its fields belong to before-first-apply', () => {
    const live = deployment(baseSpec()) as KubeObject;
    const error = conflictOf(() => apply({ live, config: deployment({ replicas: 4 }), manager: 'kubectl' }));
    expect(error.status.message).toBe(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas',
    );
  });

  // The annotation is the applied object as Go's encoder writes it, ending in a newline, as
  // kube-apiserver 1.34.4 rewrote it after kubectl 1.33's `apply --server-side` (recorded for
  // test/client/apply.test.ts).
  test('kubectl keeps a client-side last-applied annotation in step', () => {
    const annotation = 'kubectl.kubernetes.io/last-applied-configuration';
    const live = apply({
      live: undefined,
      config: deployment(baseSpec(), { annotations: { [annotation]: '{}' } }),
      manager: 'kubectl',
    });
    const config = deployment({ replicas: 3 });
    const object = apply({ live, config, manager: 'kubectl', now: T2, force: true });
    expect(object.metadata.annotations).toEqual({
      [annotation]:
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":3}}\n',
    });
  });

  describe('taking over from client-side apply', () => {
    const annotation = 'kubectl.kubernetes.io/last-applied-configuration';
    /** As kubectl's client-side apply leaves it: the configuration in the annotation, every field its Update's. */
    function clientSideApplied(spec: Record<string, unknown>): KubeObject {
      const config = deployment(spec);
      const created = {
        ...copyJson(config),
        metadata: { ...(config.metadata as object), annotations: { [annotation]: JSON.stringify(config) } },
      } as KubeObject;
      return update(undefined, created, 'kubectl-client-side-apply', T1);
    }

    test('kubectl changes what its client-side apply set, and still holds, without a conflict', () => {
      const live = clientSideApplied(baseSpec());
      const object = apply({ live, config: deployment(baseSpec({ replicas: 5 })), manager: 'kubectl', now: T2 });
      expect((object.spec as { replicas: number }).replicas).toBe(5);
      const entries = object.metadata.managedFields as ManagedFieldsEntry[];
      expect(entries.map((entry) => `${entry.manager}/${entry.operation}`)).toEqual([
        'kubectl/Apply',
        'kubectl-client-side-apply/Update',
      ]);
      expect(JSON.stringify(entries[1].fieldsV1)).not.toContain('f:replicas');
      // The annotation follows the server-side configuration.
      expect(JSON.parse(object.metadata.annotations![annotation]).spec.replicas).toBe(5);
    });

    test('a field changed since by someone else stays a conflict, and is the only one reported', () => {
      let live = clientSideApplied(baseSpec());
      const scaled = copyJson(live);
      (scaled.spec as { replicas: number }).replicas = 3;
      live = update(live, scaled, 'scaler', T2);
      const config = deployment(baseSpec({ replicas: 5, minReadySeconds: 0 }));
      const image = (config.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec
        .containers[0];
      image.image = 'nginx:1.28';
      const error = conflictOf(() => apply({ live, config, manager: 'kubectl', now: T3 }));
      expect(error.status.message).toBe(
        'Apply failed with 1 conflict: conflict with "scaler" using apps/v1: .spec.replicas',
      );
    });

    test('only the manager kubectl is forgiven', () => {
      const live = clientSideApplied(baseSpec());
      const error = conflictOf(() =>
        apply({ live, config: deployment(baseSpec({ replicas: 5 })), manager: 'argocd', now: T2 }),
      );
      expect(error.status.message).toBe(
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
      );
    });
  });

  test('managedFields after applies and updates by three managers', () => {
    // 1. kubectl applies the deployment.
    let object = apply({
      live: undefined,
      config: deployment(baseSpec(), { labels: { app: 'web' } }),
      manager: 'kubectl',
    });
    // 2. the HPA-like "scaler" forces replicas and applies an annotation.
    object = apply({
      live: object,
      config: deployment({ replicas: 4 }, { annotations: { scaled: 'yes' } }),
      manager: 'scaler',
      force: true,
      now: T2,
    });
    // 3. "editor" updates the image and adds a label with a PUT.
    const edited = copyJson(object);
    (
      edited.spec as { template: { spec: { containers: Record<string, unknown>[] } } }
    ).template.spec.containers[0].image = 'nginx:1.28';
    edited.metadata.labels = { ...edited.metadata.labels, owner: 'ops' };
    object = update(object, edited, 'editor', T3);
    // 4. kubectl re-applies without replicas, with editor's image value (shared, so no conflict) and a second port.
    const spec = baseSpec();
    delete spec.replicas;
    (spec.template as { spec: { containers: Record<string, unknown>[] } }).spec.containers[0] = {
      name: 'nginx',
      image: 'nginx:1.28',
      ports: [{ containerPort: 80 }, { containerPort: 443, name: 'https' }],
    };
    object = apply({ live: object, config: deployment(spec, { labels: { app: 'web' } }), manager: 'kubectl', now: T3 });

    expect(object.metadata.managedFields).toEqual([
      {
        manager: 'scaler',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2025-03-01T10:00:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:scaled': {} } }, 'f:spec': { 'f:replicas': {} } },
      },
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2025-03-01T10:00:09Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  [NGINX_KEY]: {
                    '.': {},
                    'f:image': {},
                    'f:name': {},
                    'f:ports': {
                      [PORT_80]: { '.': {}, 'f:containerPort': {} },
                      'k:{"containerPort":443,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:name': {} },
                    },
                  },
                },
              },
            },
          },
        },
      },
      {
        manager: 'editor',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2025-03-01T10:00:09Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:owner': {} } },
          'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { [NGINX_KEY]: { 'f:image': {} } } } } },
        },
      },
    ]);
    expect((object.spec as { replicas: number }).replicas).toBe(4);
    expect(object.metadata.labels).toEqual({ app: 'web', owner: 'ops' });
  });

  test('an Update entry lists its members in the order the reference serializes them: `.` first, then sorted', () => {
    const created = update(
      undefined,
      deployment(baseSpec(), { labels: { z: '1', a: '2' } }) as KubeObject,
      'creator',
      T1,
    );
    const fields = (created.metadata.managedFields as ManagedFieldsEntry[])[0].fieldsV1 as Record<
      string,
      Record<string, Record<string, unknown>>
    >;
    expect(Object.keys(fields)).toEqual(['f:metadata', 'f:spec']);
    expect(Object.keys(fields['f:metadata']['f:labels'])).toEqual(['.', 'f:a', 'f:z']);
    // spec is in a created Deployment's zero object already: no `.` of its own.
    expect(Object.keys(fields['f:spec'])).toEqual(['f:replicas', 'f:selector', 'f:template']);
  });

  test.each([[[{}]], [[]]])('a managedFields reset with %j on an update leaves the object untracked', (sent) => {
    const live = apply({ live: undefined, config: deployment(baseSpec()), manager: 'kubectl' });
    const reset = copyJson(live);
    reset.metadata.managedFields = sent;
    (reset.spec as { replicas: number }).replicas = 3;
    // The reference's update records nothing on an object without managedFields, the writer's
    // own change included, until an apply starts over.
    expect(update(live, reset, 'resetter', T2).metadata.managedFields).toBeUndefined();
  });
});
