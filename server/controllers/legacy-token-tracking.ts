/**
 * The reference server's legacy-token-tracking controller: `kube-system/kube-apiserver-legacy-
 * service-account-token-tracking` holds in `since` the day (UTC, `YYYY-MM-DD`) from which the
 * server is taken to track the use of legacy service-account token Secrets. The controller
 * manager's legacy-serviceaccount-token-cleaner reads it before it cleans anything, and logs an
 * error while it is missing. Made when missing; a `since` that is no date is set to today.
 */
import type { ObjectOperations } from '../client/operations';
import { keepConfigMap } from './kept-config-map';

export const LEGACY_TOKEN_TRACKING_NAMESPACE = 'kube-system';
export const LEGACY_TOKEN_TRACKING_NAME = 'kube-apiserver-legacy-service-account-token-tracking';
const SINCE_KEY = 'since';

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
  keepConfigMap(
    operations,
    {
      namespace: LEGACY_TOKEN_TRACKING_NAMESPACE,
      name: LEGACY_TOKEN_TRACKING_NAME,
      isWanted: (object) => isDate((object.data as Record<string, unknown> | undefined)?.[SINCE_KEY]),
      initialData: () => ({ [SINCE_KEY]: today() }),
      change: (object) => {
        object.data = { ...((object.data as Record<string, string> | undefined) ?? {}), [SINCE_KEY]: today() };
      },
    },
    stop,
  );
}
