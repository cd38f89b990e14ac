/**
 * Rebuilds the shared node port bitmap from the Services, as the reference's node port repair
 * loop does, on every replica: at start (before the replica reports its repair hook done) and
 * every 3 minutes after. It writes the bitmap when it is missing (a new cluster), adopts a
 * changed `--service-node-port-range`, marks ports Services hold that the bitmap lost, and
 * frees ports no Service holds, but only after they were seen so three passes in a row: a
 * port taken a moment before its Service is stored must not be freed under it.
 *
 * The bitmap is read before the Services are listed, and written only if it did not change
 * in between (compare-and-swap), so a port taken meanwhile is never lost; a pass that loses
 * the race is simply run again.
 */
import { EVERYTHING, type ObjectStorage } from '../../storage/objects/types';
import { heldNodePorts, type NodePortSpec } from '../registry/allocators/node-ports';
import type { SharedPortBitmap } from '../registry/allocators/port-bitmap';

/** The reference's ServiceNodePortInterval. */
const REPAIR_INTERVAL_MS = 3 * 60_000;
/** Passes a port must be seen without a Service before it is freed (the reference's numRepairsBeforeLeakCleanup). */
const PASSES_BEFORE_LEAK_CLEANUP = 3;
/** Between attempts of the first pass, which the replica waits for. */
const FIRST_PASS_RETRY_MS = 1_000;

export interface NodePortRepairOptions {
  readonly services: ObjectStorage;
  readonly bitmap: SharedPortBitmap;
  readonly log?: (message: string) => void;
}

export class NodePortRepair {
  /** Ports seen without a Service, with the passes left before they are freed. */
  private readonly leaks = new Map<number, number>();
  private readonly log: (message: string) => void;

  constructor(private readonly options: NodePortRepairOptions) {
    this.log = options.log ?? ((message) => console.error(message));
  }

  /** One pass; false when another replica wrote the bitmap meanwhile (nothing written). */
  async runOnce(): Promise<boolean> {
    const { bitmap: shared } = this.options;
    const { bitmap: stored, modRevision } = await shared.read();
    const { items } = await this.options.services.list({}, { predicate: EVERYTHING });
    const rebuilt = shared.empty();
    for (const service of items) {
      const name = `${service.metadata.namespace}/${service.metadata.name}`;
      for (const port of heldNodePorts((service.spec ?? {}) as NodePortSpec)) {
        const refused = rebuilt.allocate(port);
        if (refused === undefined) {
          if (modRevision !== 0 && (!stored.range.contains(port) || !stored.has(port)))
            this.log(`the node port ${port} for service ${name} is not allocated; repairing`);
          this.leaks.delete(port);
        } else if (rebuilt.range.contains(port)) {
          this.log(`the node port ${port} for service ${name} was assigned to multiple services; please recreate`);
        } else {
          this.log(
            `the node port ${port} for service ${name} is not within the port range ${rebuilt.range}; please recreate`,
          );
        }
      }
    }
    for (const port of stored.taken()) {
      if (rebuilt.has(port) || !rebuilt.range.contains(port)) continue;
      const left = (this.leaks.get(port) ?? PASSES_BEFORE_LEAK_CLEANUP) - 1;
      if (left > 0) {
        if (!this.leaks.has(port)) this.log(`the node port ${port} may have leaked: flagging for later clean up`);
        this.leaks.set(port, left);
        rebuilt.allocate(port);
      } else {
        this.log(`the node port ${port} appears to have leaked: cleaning up`);
        this.leaks.delete(port);
      }
    }
    return shared.write(rebuilt, modRevision);
  }
}

/**
 * Runs the repair until `stop`; resolves once the first pass has written the bitmap (retried
 * every second until it does), so the replica hands out no port before.
 */
export async function startNodePortRepair(
  options: NodePortRepairOptions & { readonly stop: AbortSignal; readonly intervalMs?: number },
): Promise<void> {
  const repair = new NodePortRepair(options);
  const log = options.log ?? ((message: string) => console.error(message));
  const pass = async (): Promise<boolean> => {
    try {
      return await repair.runOnce();
    } catch (error) {
      log(`node port repair: ${(error as Error).message}`);
      return false;
    }
  };
  while (!options.stop.aborted && !(await pass())) {
    await new Promise((resolve) => setTimeout(resolve, FIRST_PASS_RETRY_MS).unref());
  }
  const timer = setInterval(() => void pass(), options.intervalMs ?? REPAIR_INTERVAL_MS);
  timer.unref();
  options.stop.addEventListener('abort', () => clearInterval(timer), { once: true });
}
