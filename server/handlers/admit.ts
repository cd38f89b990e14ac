/** The admission step of a write: mutating plugins, then validating ones (server/admission). */
import type { UserInfo } from '../authn/types';
import type { AdmissionOperation } from '../admission/types';
import type { KubeObject, ObjectKey } from '../../storage/objects/types';
import type { HandlerScope } from './scope';

export interface AdmissionStep {
  readonly operation: AdmissionOperation;
  readonly user: UserInfo;
  readonly key: ObjectKey;
  readonly subresource?: string;
  /** The object about to be stored (storage version); mutating plugins may change it. */
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly dryRun: boolean;
}

export async function admit(scope: HandlerScope, step: AdmissionStep): Promise<void> {
  const admission = scope.context.admission;
  if (admission === undefined) return;
  const request = {
    operation: step.operation,
    type: scope.type,
    version: scope.version.version,
    subresource: step.subresource,
    namespace: step.key.namespace,
    name: step.key.name,
    object: step.object,
    oldObject: step.oldObject,
    dryRun: step.dryRun,
    user: step.user,
  };
  await admission.admit(request);
  await admission.validate(request);
}
