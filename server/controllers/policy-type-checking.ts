/**
 * Writes each ValidatingAdmissionPolicy's `status.typeChecking` (the expression warnings of
 * server/admission/policy/type-checking.ts) and `status.observedGeneration`, once per
 * generation, as the reference's validatingadmissionpolicy-status controller does from its
 * controller manager. Runs on the leader. Kinds are resolved by the registry at the time of the
 * check: a policy checked before its custom resource was served is not checked again until it
 * changes (as the reference, which checks once per generation too).
 */
import type { KubeObject } from '../../api/objects';
import { kindOfResource, schemaOfKind } from '../validation/admission-cel/kind-schemas';
import { typeCheckPolicy, type KindResolver } from '../admission/policy/type-checking';
import type { ValidatingAdmissionPolicySpec } from '../../api/admissionregistration';
import type { Definitions } from '../validation/decode';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';

const GROUP = 'admissionregistration.k8s.io';
/** The reference controller's field manager. */
const MANAGER = 'validatingadmissionpolicy-status';

function observedGeneration(policy: KubeObject): number {
  return Number((policy.status as { observedGeneration?: number } | undefined)?.observedGeneration ?? 0);
}

export function startPolicyTypeChecking(
  operations: ObjectOperations,
  definitions: Definitions,
  stop: AbortSignal,
): void {
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
    // Applied as the reference's controller applies it: with no warnings, `typeChecking: {}`
    // (which server-side apply then drops where it held warnings before).
    await operations.applyStatus(
      type,
      { name },
      {
        apiVersion: `${GROUP}/v1`,
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name },
        status: {
          observedGeneration: generation,
          typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {},
        },
      },
      MANAGER,
    );
  };
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}
