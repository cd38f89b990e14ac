/**
 * The reference server's legacy-token-tracking controller: `kube-system/kube-apiserver-legacy-
 * service-account-token-tracking` holds in `since` the day (UTC, `YYYY-MM-DD`) from which the
 * server is taken to track the use of legacy service-account token Secrets. The controller
 * manager's legacy-serviceaccount-token-cleaner reads it before it cleans anything, and logs an
 * error while it is missing. Made when missing; a `since` that is no date is set to today.
 */
import type { KubeObject } from '../../api/objects';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { coreType } from './per-namespace';

export const LEGACY_TOKEN_TRACKING_NAMESPACE = 'kube-system';
export const LEGACY_TOKEN_TRACKING_NAME = 'kube-apiserver-legacy-service-account-token-tracking';
const SINCE_KEY = 'since';
const RETRY_MS = 1000;

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** Go's time.Parse with layout 2006-01-02: exactly four, two and two digits of a real day. */
function isDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

export function startLegacyTokenTracking(operations: ObjectOperations, stop: AbortSignal): void {
  const type = coreType(operations, 'configmaps');
  const key = `${LEGACY_TOKEN_TRACKING_NAMESPACE}/${LEGACY_TOKEN_TRACKING_NAME}`;
  const tracked = (object: KubeObject) => isDate((object.data as Record<string, unknown> | undefined)?.[SINCE_KEY]);

  let running = false;
  const reconcile = (): void => {
    if (running || stop.aborted) return;
    const current = informer.objects.get(key);
    if (current !== undefined && tracked(current)) return;
    running = true;
    const write =
      current === undefined
        ? operations.createObject(type, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: LEGACY_TOKEN_TRACKING_NAME, namespace: LEGACY_TOKEN_TRACKING_NAMESPACE },
            data: { [SINCE_KEY]: today() },
          })
        : operations.updateObject(
            type,
            { namespace: LEGACY_TOKEN_TRACKING_NAMESPACE, name: LEGACY_TOKEN_TRACKING_NAME },
            (object) => {
              object.data = { ...((object.data as Record<string, string> | undefined) ?? {}), [SINCE_KEY]: today() };
            },
          );
    write.catch(() => setTimeout(reconcile, RETRY_MS)).finally(() => (running = false));
  };

  const isKept = (object: KubeObject) =>
    object.metadata.namespace === LEGACY_TOKEN_TRACKING_NAMESPACE &&
    object.metadata.name === LEGACY_TOKEN_TRACKING_NAME;
  const informer = startInformer(operations.storageFor(type), {
    onUpsert: (object) => isKept(object) && reconcile(),
    onDelete: (object) => isKept(object) && reconcile(),
  });
  void informer.synced.then(reconcile);
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}
