/**
 * Admission: plugins that see every write between the store's preparation of the object and
 * its storage. The store (server/registry/store/) runs the chain's mutating phase first, then
 * validation, then the validating phase, so nothing a mutating plugin does escapes validation.
 * A plugin refuses a request by throwing a `StatusError`. The chain is always present: an empty
 * one admits everything.
 */
import type { KubeObject } from '../../api/objects';
import type { UserInfo } from '../../api/user-info';
import type { GroupVersionKind, GroupVersionResource } from '../../api/identity';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * The options object of the operation as the client sent it (`CreateOptions`, `UpdateOptions`,
 * `PatchOptions` or `DeleteOptions` of meta.k8s.io/v1), as webhooks receive it.
 */
export interface OperationOptions {
  readonly kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';
  readonly apiVersion: 'meta.k8s.io/v1';
  readonly [field: string]: unknown;
}

/** What a plugin learns about one write: the reference's admission.Attributes. */
export interface AdmissionAttributes {
  /** A fresh id per request (the AdmissionReview's `request.uid`). */
  readonly uid: string;
  /** The kind of `object` and `oldObject` (the storage version: plugins see stored objects). */
  readonly kind: GroupVersionKind;
  /** The resource of `object`, in the same version as `kind`. */
  readonly resource: GroupVersionResource;
  /** '' for the main resource. */
  readonly subResource: string;
  /** The kind and resource as the request addressed them (its group-version). */
  readonly requestKind: GroupVersionKind;
  readonly requestResource: GroupVersionResource;
  readonly requestSubResource: string;
  readonly name: string;
  /** '' for cluster-scoped resources. */
  readonly namespace: string;
  readonly operation: AdmissionOperation;
  /** Absent for CONNECT, which has no options object of its own (the reference sends none). */
  readonly options?: OperationOptions;
  readonly userInfo: UserInfo;
  readonly dryRun: boolean;
  /** The object to be stored (absent on DELETE); mutating plugins may change it in place. */
  readonly object?: KubeObject;
  /** The stored object an UPDATE or DELETE replaces. */
  readonly oldObject?: KubeObject;
  /** Warnings plugins add for the client (webhooks' `warnings`): sent as `Warning` headers. */
  readonly warnings: string[];
  /**
   * Annotations plugins add to the request's audit event (`<plugin key>/<name>` → value, as the
   * reference's AddAnnotation); the request's audit event carries them.
   */
  readonly auditAnnotations: Record<string, string>;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase: may change `attributes.object`. */
  admit?(attributes: AdmissionAttributes): Promise<void>;
  /** Validating phase: may only refuse. */
  validate?(attributes: AdmissionAttributes): Promise<void>;
}

export interface Admission {
  /** Every plugin's mutating phase, in order. */
  admit(attributes: AdmissionAttributes): Promise<void>;
  /** Every plugin's validating phase, in order. */
  validate(attributes: AdmissionAttributes): Promise<void>;
}

/** The plugins as one chain, in the given order; an empty list admits everything. */
export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  const mutating = plugins.filter((plugin) => plugin.admit !== undefined);
  const validating = plugins.filter((plugin) => plugin.validate !== undefined);
  return {
    async admit(attributes) {
      for (const plugin of mutating) await plugin.admit!(attributes);
    },
    async validate(attributes) {
      for (const plugin of validating) await plugin.validate!(attributes);
    },
  };
}
