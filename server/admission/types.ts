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
import type { WarningRecorder } from '../request/warning-recorder';

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
  /**
   * The request's warnings, which plugins add to for the client (webhooks' `warnings`): sent as
   * `Warning` headers, with a refusal too.
   */
  readonly warnings: WarningRecorder;
  /**
   * Annotations plugins add to the request's audit event (`<plugin key>/<name>` → value, as the
   * reference's AddAnnotation); the request's audit event carries them.
   */
  readonly auditAnnotations: Record<string, string>;
  /** The request's deadline (epoch ms), past which no webhook is waited for; absent for the server's own writes. */
  readonly deadline?: number;
}

/**
 * Puts a mutating plugin's result in `attributes.object`: the store holds that very object, so
 * its members are replaced in place.
 */
export function replaceObject(attributes: AdmissionAttributes, object: KubeObject): void {
  const target = attributes.object as Record<string, unknown>;
  for (const key of Object.keys(target)) if (!(key in object)) delete target[key];
  Object.assign(target, object);
}

/**
 * The reference's reinvocation context of one request's mutating phase: a plugin that changed
 * the object after a reinvocable policy saw it asks for one more pass, in which the plugins that
 * take part (`reinvocable`) run again, and each keeps what it needs between the passes.
 */
export class Reinvocation {
  /** True during the second pass. */
  isReinvoke = false;
  /** Set by a plugin: the chain makes a second pass (only one). */
  shouldReinvoke = false;
  private readonly states = new Map<string, unknown>();

  /** The plugin's own record for this request, made on first use. */
  stateOf<T>(plugin: string, make: () => T): T {
    if (!this.states.has(plugin)) this.states.set(plugin, make());
    return this.states.get(plugin) as T;
  }
}

/** What a reinvocable plugin keeps between the passes (the reference's per-plugin reinvoke context). */
export interface ReinvocationRecord {
  /** The object as the plugin last left it. */
  lastOutput: KubeObject | undefined;
  /** The keys of the IfNeeded invocations run since the object last changed. */
  readonly previouslyInvoked: Set<string>;
  /** The keys of the invocations due in the second pass. */
  readonly due: Set<string>;
}

export function newReinvocationRecord(): ReinvocationRecord {
  return { lastOutput: undefined, previouslyInvoked: new Set(), due: new Set() };
}

/** The object changed: every IfNeeded invocation run before is due again. */
export function requireReinvokingPreviouslyInvoked(record: ReinvocationRecord): void {
  for (const key of record.previouslyInvoked) record.due.add(key);
  record.previouslyInvoked.clear();
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase: may change `attributes.object`. `reinvocation` is the chain's for this request. */
  admit?(attributes: AdmissionAttributes, reinvocation: Reinvocation): Promise<void>;
  /**
   * Runs again in the chain's second pass. The reference runs every plugin again; here only the
   * ones that keep a reinvocation record do (the in-tree plugins before them are not re-run).
   */
  readonly reinvocable?: boolean;
  /**
   * After the mutating phase (its second pass too), on the object as admission leaves it and
   * before the store fills system metadata and validates it: where the reference's storage
   * checks a write before its strategy does (RBAC's escalation checks). May only refuse.
   */
  admitted?(attributes: AdmissionAttributes): Promise<void>;
  /** Validating phase: may only refuse. */
  validate?(attributes: AdmissionAttributes): Promise<void>;
}

export interface Admission {
  /** Every plugin's mutating phase, in order, then every check of the admitted object. */
  admit(attributes: AdmissionAttributes): Promise<void>;
  /** Every plugin's validating phase, in order. */
  validate(attributes: AdmissionAttributes): Promise<void>;
}

/** The plugins as one chain, in the given order; an empty list admits everything. */
export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  const mutating = plugins.filter((plugin) => plugin.admit !== undefined);
  const checking = plugins.filter((plugin) => plugin.admitted !== undefined);
  const validating = plugins.filter((plugin) => plugin.validate !== undefined);
  return {
    async admit(attributes) {
      const reinvocation = new Reinvocation();
      for (const plugin of mutating) await plugin.admit!(attributes, reinvocation);
      if (reinvocation.shouldReinvoke) {
        reinvocation.isReinvoke = true;
        for (const plugin of mutating) if (plugin.reinvocable) await plugin.admit!(attributes, reinvocation);
      }
      for (const plugin of checking) await plugin.admitted!(attributes);
    },
    async validate(attributes) {
      for (const plugin of validating) await plugin.validate!(attributes);
    },
  };
}
