/**
 * `kube-system/extension-apiserver-authentication`, as the reference publishes it: the client
 * CA and the authenticating proxy's settings, so that extension API servers can authenticate
 * requests this server forwards to them. Header lists are JSON arrays, as the reference
 * writes them. A changed or removed map is put back.
 */
import type { KubeObject } from '../../api/objects';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { coreType } from './per-namespace';

export const AUTHENTICATION_INFO_NAMESPACE = 'kube-system';
export const AUTHENTICATION_INFO_NAME = 'extension-apiserver-authentication';
const RETRY_MS = 1000;

export interface AuthenticationInfo {
  readonly clientCaPem?: string;
  readonly requestHeader?: {
    readonly caPem: string;
    readonly usernameHeaders: readonly string[];
    readonly uidHeaders: readonly string[];
    readonly groupHeaders: readonly string[];
    readonly extraHeaderPrefixes: readonly string[];
    readonly allowedNames: readonly string[];
  };
}

export function authenticationInfoData(info: AuthenticationInfo): Record<string, string> {
  // Without a client CA the key is left out, as the reference leaves it out.
  const data: Record<string, string> = info.clientCaPem === undefined ? {} : { 'client-ca-file': info.clientCaPem };
  const proxy = info.requestHeader;
  if (proxy) {
    data['requestheader-client-ca-file'] = proxy.caPem;
    data['requestheader-username-headers'] = JSON.stringify(proxy.usernameHeaders);
    if (proxy.uidHeaders.length > 0) data['requestheader-uid-headers'] = JSON.stringify(proxy.uidHeaders);
    data['requestheader-group-headers'] = JSON.stringify(proxy.groupHeaders);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(proxy.extraHeaderPrefixes);
    data['requestheader-allowed-names'] = JSON.stringify(proxy.allowedNames);
  }
  return data;
}

export function startAuthenticationInfoPublisher(
  operations: ObjectOperations,
  info: AuthenticationInfo,
  stop: AbortSignal,
): void {
  const type = coreType(operations, 'configmaps');
  const wanted = authenticationInfoData(info);
  const key = `${AUTHENTICATION_INFO_NAMESPACE}/${AUTHENTICATION_INFO_NAME}`;
  const same = (object: KubeObject) => JSON.stringify(object.data ?? {}) === JSON.stringify(wanted);

  let running = false;
  const reconcile = (): void => {
    if (running || stop.aborted) return;
    running = true;
    const current = informer.objects.get(key);
    const write =
      current === undefined
        ? operations.createObject(type, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: AUTHENTICATION_INFO_NAME, namespace: AUTHENTICATION_INFO_NAMESPACE },
            data: wanted,
          })
        : same(current)
          ? Promise.resolve()
          : operations.updateObject(
              type,
              { namespace: AUTHENTICATION_INFO_NAMESPACE, name: AUTHENTICATION_INFO_NAME },
              (object) => void (object.data = { ...wanted }),
            );
    write.catch(() => setTimeout(reconcile, RETRY_MS)).finally(() => (running = false));
  };

  const informer = startInformer(operations.storageFor(type), {
    onUpsert: (object) => objectKey(object) === key && !same(object) && reconcile(),
    onDelete: (object) => objectKey(object) === key && reconcile(),
  });
  void informer.synced.then(reconcile);
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}

function objectKey(object: KubeObject): string {
  return `${String(object.metadata.namespace)}/${String(object.metadata.name)}`;
}
