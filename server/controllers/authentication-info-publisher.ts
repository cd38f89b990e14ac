/**
 * `kube-system/extension-apiserver-authentication`, as the reference publishes it: the client
 * CA and the authenticating proxy's settings, so that extension API servers can authenticate
 * requests this server forwards to them. Header lists are JSON arrays, as the reference
 * writes them. A changed or removed map is put back.
 */
import type { ObjectOperations } from '../client/operations';
import { keepConfigMap } from './kept-config-map';

export const AUTHENTICATION_INFO_NAMESPACE = 'kube-system';
export const AUTHENTICATION_INFO_NAME = 'extension-apiserver-authentication';

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
  const wanted = authenticationInfoData(info);
  keepConfigMap(
    operations,
    {
      namespace: AUTHENTICATION_INFO_NAMESPACE,
      name: AUTHENTICATION_INFO_NAME,
      isWanted: (object) => JSON.stringify(object.data ?? {}) === JSON.stringify(wanted),
      initialData: () => ({ ...wanted }),
      change: (object) => void (object.data = { ...wanted }),
    },
    stop,
  );
}
