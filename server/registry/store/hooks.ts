/**
 * A kind's own steps around storage, as the reference's store has BeginCreate and BeginUpdate:
 * run once the object is validated and admitted, just before it is written, they may change
 * the object (a Service gets its cluster IP) and hold resources for it. The returned finish is
 * called with whether the write was stored, so a failed write gives back what it held.
 */
import type { KubeObject } from '../../../storage/objects/types';

/** Called once after the write: `stored` false when it failed, so what was held goes back. */
export type FinishWrite = (stored: boolean) => Promise<void>;

export interface StoreHooks {
  /** Before a create is stored; not called on a dry run (nothing would hold what it takes). */
  beginCreate?(object: KubeObject): Promise<FinishWrite>;
}

export const FINISH_NOTHING: FinishWrite = async () => undefined;
