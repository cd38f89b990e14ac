/**
 * Writes each ValidatingAdmissionPolicy's `status.typeChecking` (the expression warnings of
 * server/admission/policy/type-checking.ts) and `status.observedGeneration`, once per
 * generation, as the reference's validatingadmissionpolicy-status controller does from its
 * controller manager. Runs on the leader. Kinds are resolved by the registry at the time of the
 * check: a policy checked before its custom resource was served is not checked again until it
 * changes (as the reference, which checks once per generation too).
 */
import type { KubeObject } from '../../storage/objects/types';
import { kindOfResource, schemaOfKind } from '../admission/policy/kind-schemas';
import { typeCheckPolicy, type KindResolver } from '../admission/policy/type-checking';
import type { ValidatingAdmissionPolicySpec } from '../admission/policy/types';
import type { Definitions } from '../validation/decode';
import { startInformer } from './informer';
import type { ObjectOperations } from './operations';
import { startWorkQueue } from './work-queue';

const GROUP = 'admissionregistration.k8s.io';

function observedGeneration(policy: KubeObject): number {
  return Number((policy.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0);
}

export function startPolicyTypeChecking(operations: ObjectOperations, definitions: Definitions, stop: AbortSignal): void {
  const type = operations.registry.find({ group: GROUP, version: 'v1' }, 'validatingadmissionpolicies');
  if (!type) return;
  const resolver: KindResolver = {
    kindOfResource: (resource) => kindOfResource(operations.registry, definitions, resource),
    schemaOfKind: (gvk) => schemaOfKind(operations.registry, definitions, gvk),
  };
  const queue = startWorkQueue<string>({ stop, handle: (name) => reconcile(name) });
  const informer = startInformer(operations.storageFor(type), {
    onUpsert: (policy) => {
      if (Number(policy.metadata.generation ?? 0) > observedGeneration(policy)) queue.add(String(policy.metadata.name));
    },
  });

  const reconcile = async (name: string): Promise<void> => {
    const policy = informer.objects.get(name);
    if (policy === undefined) return;
    const generation = Number(policy.metadata.generation ?? 0);
    if (generation <= observedGeneration(policy)) return;
    const warnings = typeCheckPolicy(policy.spec as ValidatingAdmissionPolicySpec, resolver);
    await operations.updateObject(
      type,
      { name },
      (current) => {
        // A newer generation written meanwhile is checked on its own turn.
        if (Number(current.metadata.generation ?? 0) !== generation) return;
        const status = { ...(current.status as { typeChecking?: { expressionWarnings?: unknown[] } } | undefined), observedGeneration: generation };
        // The reference applies `typeChecking: {expressionWarnings}` with server-side apply: an
        // empty list leaves `{}`, except where warnings were, which it removes with their parent.
        if (warnings.length > 0) status.typeChecking = { expressionWarnings: warnings };
        else if (status.typeChecking?.expressionWarnings?.length) delete status.typeChecking;
        else status.typeChecking = {};
        current.status = status;
      },
      'status',
    );
  };
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}
