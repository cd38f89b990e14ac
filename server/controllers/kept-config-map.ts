/**
 * A controller that keeps one ConfigMap as this server wants it: made when missing, changed
 * when it is not as wanted (also after someone else's write), and tried again a second later
 * when a write fails. The publishers of kube-system's maps are each one of these.
 */
import type { KubeObject } from '../../api/objects';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { coreType } from './per-namespace';

const RETRY_MS = 1000;

export interface KeptConfigMap {
  readonly namespace: string;
  readonly name: string;
  /** Whether the map as stored needs no write. */
  isWanted(object: KubeObject): boolean;
  /** The data of the map made when there is none. */
  initialData(): Record<string, string>;
  /** Turns the stored map into the wanted one (it may mutate `object`). */
  change(object: KubeObject): void;
}

export function keepConfigMap(operations: ObjectOperations, kept: KeptConfigMap, stop: AbortSignal): void {
  const type = coreType(operations, 'configmaps');
  const { namespace, name } = kept;
  const isKept = (object: KubeObject) => object.metadata.name === name;

  let running = false;
  const reconcile = (): void => {
    if (running || stop.aborted) return;
    const current = informer.objects.get(`${namespace}/${name}`);
    if (current !== undefined && kept.isWanted(current)) return;
    running = true;
    const write =
      current === undefined
        ? operations.createObject(type, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name, namespace },
            data: kept.initialData(),
          })
        : operations.updateObject(type, { namespace, name }, (object) => kept.change(object));
    write.catch(() => setTimeout(reconcile, RETRY_MS)).finally(() => (running = false));
  };

  const informer = startInformer(
    operations.storageFor(type),
    {
      onUpsert: (object) => isKept(object) && reconcile(),
      onDelete: (object) => isKept(object) && reconcile(),
    },
    { namespace },
  );
  void informer.synced.then(reconcile);
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}
