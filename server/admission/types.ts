/**
 * Admission: checks (and, for mutating plugins, changes) a write after defaulting and before
 * validation and storage. Plugins are one-method objects combined into a chain; a plugin
 * refuses a request by throwing a `StatusError`.
 */
import type { KubeObject } from '../../storage/objects/types';
import type { UserInfo } from '../authn/types';
import type { ResourceType } from '../registry/types';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

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

export type Admission = Required<Pick<AdmissionPlugin, 'admit' | 'validate'>>;

/** Runs every plugin's mutating phase, then every plugin's validating phase, in order. */
export function admissionChain(plugins: readonly AdmissionPlugin[]): Admission {
  return {
    async admit(request) {
      for (const plugin of plugins) await plugin.admit?.(request);
    },
    async validate(request) {
      for (const plugin of plugins) await plugin.validate?.(request);
    },
  };
}
