/**
 * The store's two admission steps: the attributes a plugin sees for one write, then the
 * chain's mutating phase (before the strategy prepares and validates the object) or its
 * validating phase (after), as the reference's store runs them.
 */
import { randomUUID } from 'node:crypto';
import type { ObjectKey } from '../../../storage/objects/types';
import type { AdmissionAttributes, AdmissionOperation, OperationOptions } from '../../admission/types';
import type { UserInfo } from '../../../api/user-info';
import type { GroupVersionKind } from '../../../api/identity';
import { preparesInServedVersion, type StoreScope } from './scope';
import { WarningList, type WarningRecorder } from '../../request/warning-recorder';

import type { KubeObject } from '../../../api/objects';
/** Who writes, how, and with which options: what every store operation is told besides the object. */
export interface WriteRequest {
  readonly user: UserInfo;
  /** Absent for CONNECT. */
  readonly options?: OperationOptions;
  readonly dryRun: boolean;
  /** '' or absent for the main resource. */
  readonly subresource?: string;
  /**
   * The request's audit annotations (server/audit/record/request-audit.ts), which admission plugins
   * write into as they run; absent when the request is not audited.
   */
  readonly auditAnnotations?: Record<string, string>;
  /**
   * The request's warnings (server/request/warning-recorder.ts), which the strategy and admission
   * add to as they run, so that a refusal carries those gathered before it; absent when no
   * client hears them (the server's own writes).
   */
  readonly warnings?: WarningRecorder;
  /**
   * The request's deadline (epoch ms): its storage writes are not sent past it (WriteDeadline).
   * Absent for the server's own writes, which have none.
   */
  readonly deadline?: number;
  /**
   * The write is a patch or an apply: owner references it repeats are deduplicated only after
   * mutating admission, as the reference's patch handler does (a create's and a PUT's before too).
   */
  readonly patch?: boolean;
}

/**
 * The options object a write was sent with, as admission plugins receive it: the parsed
 * options' fields, with the dry run in its wire form (`dryRun: ["All"]`).
 */
export function operationOptions<Sent extends { readonly dryRun: boolean }>(
  kind: OperationOptions['kind'],
  sent: Sent,
): OperationOptions {
  const options: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  for (const [field, value] of Object.entries(sent)) {
    if (field === 'dryRun') {
      if (value === true) options.dryRun = ['All'];
    } else if (value !== undefined) {
      options[field] = value;
    }
  }
  return options as unknown as OperationOptions;
}

export function admissionAttributes(
  scope: StoreScope,
  write: WriteRequest,
  step: {
    readonly operation: AdmissionOperation;
    readonly key: ObjectKey;
    readonly object?: KubeObject;
    readonly oldObject?: KubeObject;
  },
): AdmissionAttributes {
  const { type } = scope;
  const requested = { group: type.group, version: scope.version.version };
  // The version the chain holds the objects in: the one the write is prepared in (scope.ts).
  const stored = preparesInServedVersion(scope)
    ? requested
    : { group: type.storageGroup ?? type.group, version: type.storageVersion };
  const subResource = write.subresource ?? '';
  return {
    uid: randomUUID(),
    kind: { ...stored, kind: type.kind },
    resource: { ...stored, resource: type.resource },
    subResource,
    requestKind: { ...requested, kind: type.kind },
    requestResource: { ...requested, resource: type.resource },
    requestSubResource: subResource,
    name: step.key.name,
    namespace: step.key.namespace ?? '',
    operation: step.operation,
    options: write.options,
    userInfo: write.user,
    dryRun: write.dryRun,
    object: step.object,
    oldObject: step.oldObject,
    warnings: write.warnings ?? new WarningList(),
    auditAnnotations: write.auditAnnotations ?? {},
    deadline: write.deadline,
  };
}

/**
 * Both admission phases for the create of a subresource's own kind (an Eviction, a
 * TokenRequest), which is stored nowhere: plugins and webhooks see `CREATE` of
 * `<resource>/<subresource>` with that object, as the reference admits such requests.
 */
export async function admitSubresourceCreate(
  scope: StoreScope,
  write: WriteRequest,
  step: { readonly key: ObjectKey; readonly kind: GroupVersionKind; readonly object: KubeObject },
): Promise<void> {
  step.object.metadata ??= {};
  await admitBothPhases(scope, write, { ...step, operation: 'CREATE' });
}

/**
 * Both admission phases for a CONNECT (`pods/exec`, `attach`, `portforward`, `proxy`,
 * `nodes/proxy`, `services/proxy`): plugins and webhooks see the connection's options object
 * (`PodAttachOptions`, ...) as the object, before the pod or node is even looked up, as the
 * reference admits a connection ahead of making it.
 */
export async function admitConnect(
  scope: StoreScope,
  connection: Pick<WriteRequest, 'user' | 'auditAnnotations' | 'warnings'> & { readonly subresource: string },
  step: { readonly key: ObjectKey; readonly kind: GroupVersionKind; readonly object: KubeObject },
): Promise<void> {
  await admitBothPhases(scope, { ...connection, dryRun: false }, { ...step, operation: 'CONNECT' });
}

/** The mutating then the validating phase for an object of `kind`, which is not the scope's own kind. */
async function admitBothPhases(
  scope: StoreScope,
  write: WriteRequest,
  step: {
    readonly operation: AdmissionOperation;
    readonly key: ObjectKey;
    readonly kind: GroupVersionKind;
    readonly object: KubeObject;
  },
): Promise<void> {
  const attributes = {
    ...admissionAttributes(scope, write, { operation: step.operation, key: step.key, object: step.object }),
    kind: step.kind,
    requestKind: step.kind,
  };
  await scope.context.admission.admit(attributes);
  await scope.context.admission.validate(attributes);
}
