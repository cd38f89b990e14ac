/**
 * Feeds a replica's `FlowControl` from the stored FlowSchemas and PriorityLevelConfigurations
 * (the reference's `priority-and-fairness-config-consumer`): one informer per kind, and a new
 * configuration after every burst of changes.
 */
import type { ObjectStorage } from '../../storage/objects/types';
import { startInformer } from '../client/informer';
import type { FlowControl } from './flow-control';

export interface ConfigConsumer {
  /** Resolves once both kinds were listed and the configuration built from them. */
  readonly synced: Promise<void>;
  stop(): void;
}

export function startConfigConsumer(
  flowControl: FlowControl,
  storage: { readonly schemas: ObjectStorage; readonly levels: ObjectStorage },
): ConfigConsumer {
  let scheduled = false;
  const reconfigure = () => {
    if (scheduled) return;
    scheduled = true;
    // Coalesces the many events of a list or a burst into one rebuild: all that arrives in one
    // turn of the event loop (at start, the producer's objects come back a few per store answer).
    setImmediate(() => {
      scheduled = false;
      flowControl.reconfigure(schemas.objects.values(), levels.objects.values());
    });
  };
  const handlers = { onUpsert: reconfigure, onDelete: reconfigure };
  const schemas = startInformer(storage.schemas, handlers);
  const levels = startInformer(storage.levels, handlers);
  const synced = Promise.all([schemas.synced, levels.synced]).then(() =>
    flowControl.reconfigure(schemas.objects.values(), levels.objects.values()),
  );
  return {
    synced,
    stop() {
      schemas.stop();
      levels.stop();
    },
  };
}
