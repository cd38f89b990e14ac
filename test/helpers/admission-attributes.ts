/**
 * The attributes of one write as a plugin test hands them to a plugin, built the way the server
 * builds them: the request addressed the stored version, the options object is the operation's
 * own, and warnings are collected where the test can read them.
 */
import type { GroupVersionResource } from '../../api/identity';
import type { KubeObject } from '../../api/objects';
import type { UserInfo } from '../../api/user-info';
import type { AdmissionAttributes, AdmissionOperation, OperationOptions } from '../../server/admission/types';
import { WarningList } from '../../server/request/warning-recorder';

export interface AdmittedWrite {
  readonly resource: GroupVersionResource;
  readonly kind: string;
  readonly operation: AdmissionOperation;
  /** The object to be stored; its name names the write unless `name` is given. */
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly name?: string;
  /** '' (the default) for a cluster-scoped resource. */
  readonly namespace?: string;
  readonly subResource?: string;
  /** system:masters' admin unless given. */
  readonly userInfo?: UserInfo;
}

const OPTIONS_KIND: Record<AdmissionOperation, OperationOptions['kind'] | undefined> = {
  CREATE: 'CreateOptions',
  UPDATE: 'UpdateOptions',
  DELETE: 'DeleteOptions',
  CONNECT: undefined,
};

export function admissionAttributes(write: AdmittedWrite): AdmissionAttributes & { readonly warnings: WarningList } {
  const kind = { group: write.resource.group, version: write.resource.version, kind: write.kind };
  const subResource = write.subResource ?? '';
  const optionsKind = OPTIONS_KIND[write.operation];
  return {
    uid: 'u',
    kind,
    resource: write.resource,
    subResource,
    requestKind: kind,
    requestResource: write.resource,
    requestSubResource: subResource,
    name: write.name ?? String((write.object ?? write.oldObject)?.metadata.name ?? ''),
    namespace: write.namespace ?? '',
    operation: write.operation,
    ...(optionsKind === undefined ? {} : { options: { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' } }),
    userInfo: write.userInfo ?? { name: 'admin', groups: ['system:masters'] },
    dryRun: false,
    object: write.object,
    oldObject: write.oldObject,
    warnings: new WarningList(),
    auditAnnotations: {},
  };
}
