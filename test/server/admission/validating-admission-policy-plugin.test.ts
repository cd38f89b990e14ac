/**
 * The ValidatingAdmissionPolicy plugin over in-memory caches: Audit bindings and policies'
 * auditAnnotations land in the request's `auditAnnotations` as the reference writes them (the
 * first failure as a one-element JSON list; a key's distinct values over params joined by
 * ", "), and the compiled-policy cache forgets policies once they are deleted or unbound.
 */
import { ObjectError } from '../../../storage/errors';
import type { ObjectStorage } from '../../../storage/objects/types';
import { validatingAdmissionPolicyPlugin } from '../../../server/admission/plugins/validating-admission-policy';
import type { AdmissionAttributes } from '../../../server/admission/types';
import type { WarningList } from '../../../server/request/warning-recorder';
import { admissionAttributes } from '../../helpers/admission-attributes';

import type { KubeObject } from '../../../api/objects';
import { builtinRegistry } from '../../../server/builtin-types';
/** Objects by resource, each keyed by `<namespace>/<name>`; a fake of the watch caches' reads. */
function memoryCaches() {
  const resources = new Map<string, Map<string, KubeObject>>();
  const of = (resource: string) => resources.get(resource) ?? resources.set(resource, new Map()).get(resource)!;
  const storage = (resource: string): ObjectStorage =>
    ({
      async list(scope: { namespace?: string }) {
        const items = [...of(resource).values()].filter(
          (object) => scope.namespace === undefined || object.metadata.namespace === scope.namespace,
        );
        return { items, resourceVersion: '1' };
      },
      async get(key: { namespace?: string; name: string }) {
        const found = of(resource).get(`${key.namespace ?? ''}/${key.name}`);
        if (found === undefined) throw new ObjectError('NotFound', `${key.name} not found`, { name: key.name });
        return found;
      },
    }) as unknown as ObjectStorage;
  let revision = 1;
  return {
    storageOf: (_group: string, resource: string) => storage(resource),
    configMaps: storage('configmaps'),
    put(resource: string, object: Record<string, unknown>) {
      const metadata: Record<string, unknown> = {
        ...(object.metadata as Record<string, unknown>),
        resourceVersion: String(++revision),
      };
      of(resource).set(`${String(metadata.namespace ?? '')}/${String(metadata.name)}`, {
        ...object,
        metadata,
      } as unknown as KubeObject);
    },
    remove(resource: string, name: string) {
      of(resource).delete(`/${name}`);
    },
  };
}

const policy = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['secrets'] }],
    },
    validations: [{ expression: "object.metadata.name != 'bad'", message: `refused by ${name}` }],
    ...extra,
  },
});

const binding = (name: string, policyName: string, actions: string[], paramRef?: Record<string, unknown>) => ({
  metadata: { name },
  spec: { policyName, validationActions: actions, ...(paramRef ? { paramRef } : {}) },
});

function secretCreate(name: string): AdmissionAttributes & { warnings: WarningList } {
  return admissionAttributes({
    resource: { group: '', version: 'v1', resource: 'secrets' },
    kind: 'Secret',
    operation: 'CREATE',
    object: { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' } } as unknown as KubeObject,
    namespace: 'default',
    userInfo: { name: 'alice', groups: ['system:authenticated'] },
  });
}

const denyAll = { authorize: async () => ({ decision: 'NoOpinion' as const, reason: '' }) };

describe('ValidatingAdmissionPolicy plugin', () => {
  it('writes Audit failures and auditAnnotations into the request record', async () => {
    const caches = memoryCaches();
    const plugin = validatingAdmissionPolicyPlugin(
      caches.storageOf,
      denyAll as never,
      (gvk) =>
        gvk.kind === 'ConfigMap'
          ? { type: builtinRegistry().find(gvk, 'configmaps')!, storage: caches.configMaps }
          : undefined,
      () => undefined,
    );
    caches.put(
      'validatingadmissionpolicies',
      policy('audited', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        auditAnnotations: [
          { key: 'tier', valueExpression: 'params.data.tier' },
          { key: 'empty', valueExpression: "''" },
        ],
      }),
    );
    caches.put(
      'validatingadmissionpolicybindings',
      binding('audit-only', 'audited', ['Audit', 'Warn'], { selector: {}, parameterNotFoundAction: 'Deny' }),
    );
    for (const [name, tier] of [
      ['a', 'gold'],
      ['b', 'silver'],
      ['c', 'gold'],
    ]) {
      caches.put('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default' },
        data: { tier },
      });
    }
    const request = secretCreate('bad');
    await plugin.validate!(request);
    expect(request.auditAnnotations).toEqual({
      'audited/tier': 'gold, silver',
      'validation.policy.admission.k8s.io/validation_failure':
        '[{"message":"refused by audited","policy":"audited","binding":"audit-only","expressionIndex":0,"validationActions":["Audit","Warn"]}]',
    });
    // One failure per param, one warning for identical texts, as the reference's recorder keeps.
    expect(request.warnings.texts).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'audited' with binding 'audit-only': refused by audited",
    ]);
    const fine = secretCreate('fine');
    await plugin.validate!(fine);
    expect(fine.auditAnnotations).toEqual({ 'audited/tier': 'gold, silver' });
  });

  it('shows params in the paramKind version, converted from the stored one', async () => {
    const caches = memoryCaches();
    const hpas = caches.storageOf('autoscaling', 'horizontalpodautoscalers');
    const registry = builtinRegistry();
    const plugin = validatingAdmissionPolicyPlugin(
      caches.storageOf,
      denyAll as never,
      (gvk) => {
        const type = registry.findKind(gvk);
        return type && { type, storage: hpas };
      },
      () => undefined,
    );
    caches.put(
      'validatingadmissionpolicies',
      policy('by-hpa', {
        paramKind: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler' },
        validations: [
          {
            expression: "params.apiVersion == 'autoscaling/v1' && params.spec.targetCPUUtilizationPercentage == 50",
            messageExpression: "'saw ' + params.apiVersion",
          },
        ],
      }),
    );
    caches.put(
      'validatingadmissionpolicybindings',
      binding('by-hpa', 'by-hpa', ['Deny'], { name: 'web', parameterNotFoundAction: 'Deny' }),
    );
    caches.put('horizontalpodautoscalers', {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web' },
        maxReplicas: 3,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        ],
      },
    });
    await expect(plugin.validate!(secretCreate('any'))).resolves.toBeUndefined();
  });

  it('forgets compiled policies that are deleted, replaced or unbound', async () => {
    const caches = memoryCaches();
    const plugin = validatingAdmissionPolicyPlugin(
      caches.storageOf,
      denyAll as never,
      () => undefined,
      () => undefined,
    );
    for (let cycle = 0; cycle < 3; cycle++) {
      for (let index = 0; index < 20; index++) {
        caches.put('validatingadmissionpolicies', policy(`p${index}`));
        caches.put('validatingadmissionpolicybindings', binding(`b${index}`, `p${index}`, ['Warn']));
      }
      await plugin.validate!(secretCreate('fine'));
      expect(plugin.compiledPolicyCount()).toBe(20);
      // Half the policies deleted (their bindings left dangling), the other half unbound.
      for (let index = 0; index < 20; index++)
        caches.remove(
          index % 2 === 0 ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings',
          index % 2 === 0 ? `p${index}` : `b${index}`,
        );
      await plugin.validate!(secretCreate('fine'));
      expect(plugin.compiledPolicyCount()).toBe(0);
      for (let index = 0; index < 20; index += 2) caches.remove('validatingadmissionpolicybindings', `b${index}`);
      for (let index = 1; index < 20; index += 2) caches.remove('validatingadmissionpolicies', `p${index}`);
    }
    // A replaced policy takes its old compiled form's place.
    caches.put('validatingadmissionpolicies', policy('p0'));
    caches.put('validatingadmissionpolicybindings', binding('b0', 'p0', ['Deny']));
    await expect(plugin.validate!(secretCreate('bad'))).rejects.toThrow('denied request: refused by p0');
    caches.put(
      'validatingadmissionpolicies',
      policy('p0', { validations: [{ expression: 'false', message: 'replaced' }] }),
    );
    await expect(plugin.validate!(secretCreate('fine'))).rejects.toThrow('denied request: replaced');
    expect(plugin.compiledPolicyCount()).toBe(1);
  });
});
