/**
 * The reference's tokencleaner: a bootstrap-token Secret in kube-system is deleted once its
 * `expiration` has passed (checked again at the moment it passes).
 */
import { bootstrapTokenData, bootstrapTokenExpiry, BOOTSTRAP_NAMESPACE } from '../authn/bootstrap-token';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { coreType } from './per-namespace';

/** Timers longer than this are re-armed (Node's timers overflow past 2^31 ms). */
const MAX_WAIT_MS = 24 * 3600 * 1000;

export function startBootstrapTokenCleaner(operations: ObjectOperations, stop: AbortSignal): void {
  const secrets = coreType(operations, 'secrets');
  const timers = new Map<string, NodeJS.Timeout>();

  const check = (name: string): void => {
    clearTimeout(timers.get(name));
    timers.delete(name);
    if (stop.aborted) return;
    const secret = informer.objects.get(`${BOOTSTRAP_NAMESPACE}/${name}`);
    const data = secret && bootstrapTokenData(secret);
    if (!secret || !data) return;
    const expiry = bootstrapTokenExpiry(data);
    if (expiry === undefined) return;
    const wait = expiry - Date.now();
    if (wait >= 0) {
      timers.set(
        name,
        setTimeout(() => check(name), Math.min(wait + 1, MAX_WAIT_MS)),
      );
      return;
    }
    operations
      .deleteObject(secrets, { namespace: BOOTSTRAP_NAMESPACE, name }, { uid: String(secret.metadata.uid) })
      .catch(() => {
        timers.set(
          name,
          setTimeout(() => check(name), 1000),
        );
      });
  };

  const informer = startInformer(
    operations.storageFor(secrets),
    { onUpsert: (object) => check(String(object.metadata.name)) },
    { namespace: BOOTSTRAP_NAMESPACE },
  );
  stop.addEventListener(
    'abort',
    () => {
      informer.stop();
      for (const timer of timers.values()) clearTimeout(timer);
    },
    { once: true },
  );
}
