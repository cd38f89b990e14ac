/**
 * A kind's own steps around storage, as the reference's store has BeginCreate, BeginUpdate and
 * AfterDelete: run once the object is validated and admitted, just before it is written, the
 * begin steps may change the object (a Service gets its cluster IPs and node ports) and hold
 * resources for it. The returned finish is called with whether the write was stored, so a
 * failed write gives back what it held. On a dry run the begin steps take nothing (nothing
 * would hold it) but may still fill and check what they would; afterDelete does not run.
 */
import type { KubeObject } from '../../../api/objects';
import type { UserInfo } from '../../../api/user-info';

/** Called once after the write: `stored` false when it failed, so what was held goes back. */
export type FinishWrite = (stored: boolean) => Promise<void>;

export interface WriteOptions {
  readonly dryRun: boolean;
  /** Who writes, for a step that asks the authorizer about them (a PodCertificateRequest's signer). */
  readonly user: UserInfo;
}

export interface StoreHooks {
  /** Before a create is stored. */
  beginCreate?(object: KubeObject, options: WriteOptions): Promise<FinishWrite>;
  /** Before an update of `old` is stored; run again, after the last attempt's finish(false), when the update retries on a conflict. */
  beginUpdate?(object: KubeObject, old: KubeObject, options: WriteOptions): Promise<FinishWrite>;
  /** The same for a write of the status subresource, which the main object's hook does not see. */
  beginStatusUpdate?(object: KubeObject, old: KubeObject, options: WriteOptions): Promise<FinishWrite>;
  /** After the object is removed from storage (a deletion, or the last finalizer gone). */
  afterDelete?(object: KubeObject): Promise<void>;
}

export const FINISH_NOTHING: FinishWrite = async () => undefined;
