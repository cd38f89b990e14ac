/**
 * Admission: checks (and, for mutating plugins, changes) a write after defaulting and before
 * validation and storage. Plugins are one-method objects combined into a chain; a plugin
 * refuses a request by throwing a `StatusError`.
 */
import type { KubeObject } from '../../storage/objects/types';
import type { ResourceType } from '../registry/types';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface AdmissionRequest {
  readonly operation: AdmissionOperation;
  readonly type: ResourceType;
  readonly version: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name: string;
  /** The object to be stored; mutating plugins may change it. */
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly dryRun: boolean;
  readonly user: UserInfo;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase: may change `request.object`. */
  admit?(request: AdmissionRequest): Promise<void>;
  /** Validating phase: may only refuse. */
  validate?(request: AdmissionRequest): Promise<void>;
}

/** Runs every plugin's mutating phase, then every plugin's validating phase, in order. */
export function admissionChain(plugins: readonly AdmissionPlugin[]): Required<Pick<AdmissionPlugin, 'admit' | 'validate'>> {
  return {
    async admit(request) {
      for (const plugin of plugins) await plugin.admit?.(request);
    },
    async validate(request) {
      for (const plugin of plugins) await plugin.validate?.(request);
    },
  };
}
