/**
 * The reference's bootstrapsigner: `kube-public/cluster-info` carries, for every valid
 * bootstrap token with `usage-bootstrap-signing: "true"`, a key `jws-kubeconfig-<id>` with a
 * detached JWS (HS256, keyed with the whole token `<id>.<secret>`) of its `kubeconfig`, so a
 * joining node holding a token can trust what it reads anonymously. Signatures of expired or
 * deleted tokens are removed; the map is rewritten only when a signature changes.
 */
import { FlattenedSign } from 'jose';
import type { KubeObject } from '../../api/objects';
import {
  bootstrapTokenData,
  bootstrapTokenExpired,
  bootstrapTokenExpiry,
  BOOTSTRAP_NAMESPACE,
} from '../authn/bootstrap-token';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { coreType } from './per-namespace';

export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const SIGNATURE_PREFIX = 'jws-kubeconfig-';
const RETRY_MS = 1000;
const MAX_WAIT_MS = 24 * 3600 * 1000;

/** `<header>..<signature>`: the compact JWS with its payload left out (RFC 7515 appendix F). */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const { protected: header, signature } = await new FlattenedSign(new TextEncoder().encode(content))
    .setProtectedHeader({ alg: 'HS256', kid: tokenId })
    .sign(new TextEncoder().encode(`${tokenId}.${tokenSecret}`));
  return `${header}..${signature}`;
}

/** The signing tokens by id, valid now. */
function signingTokens(secrets: Iterable<KubeObject>, now: number): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const secret of secrets) {
    if (secret.metadata.namespace !== BOOTSTRAP_NAMESPACE || secret.metadata.deletionTimestamp) continue;
    const data = bootstrapTokenData(secret);
    if (!data || data['usage-bootstrap-signing'] !== 'true' || bootstrapTokenExpired(data, now)) continue;
    const id = data['token-id'];
    if (!/^[a-z0-9]{6}$/.test(id ?? '') || !/^[a-z0-9]{16}$/.test(data['token-secret'] ?? '')) continue;
    if (secret.metadata.name !== `bootstrap-token-${id}`) continue;
    tokens.set(id, data['token-secret']);
  }
  return tokens;
}

export function startBootstrapSigner(operations: ObjectOperations, stop: AbortSignal): void {
  const configMaps = coreType(operations, 'configmaps');
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const sign = async (): Promise<void> => {
    const clusterInfo = configMapInformer.objects.get(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}`);
    const data = (clusterInfo?.data ?? undefined) as Record<string, string> | undefined;
    const content = data?.kubeconfig;
    if (clusterInfo === undefined || data === undefined || content === undefined) return;
    const wanted: Record<string, string> = {};
    for (const [id, secret] of signingTokens(secretInformer.objects.values(), Date.now())) {
      wanted[`${SIGNATURE_PREFIX}${id}`] = await detachedSignature(content, id, secret);
    }
    const present = Object.keys(data).filter((key) => key.startsWith(SIGNATURE_PREFIX));
    const changed =
      present.length !== Object.keys(wanted).length ||
      Object.entries(wanted).some(([key, value]) => data[key] !== value);
    if (!changed) return;
    await operations.updateObject(
      configMaps,
      { namespace: CLUSTER_INFO_NAMESPACE, name: CLUSTER_INFO_NAME },
      (object) => {
        const next: Record<string, string> = {};
        for (const [key, value] of Object.entries((object.data ?? {}) as Record<string, string>))
          if (!key.startsWith(SIGNATURE_PREFIX)) next[key] = value;
        // Signed what is there now: the kubeconfig may have changed since the informer saw it.
        if (next.kubeconfig !== content) return;
        object.data = { ...next, ...wanted };
      },
    );
  };

  /** Re-signs when the next signing token expires, so its signature goes away on time. */
  const armExpiryTimer = (): void => {
    clearTimeout(timer);
    const now = Date.now();
    const expiries = [...secretInformer.objects.values()]
      .map((secret) => bootstrapTokenData(secret))
      .map((data) => (data && data['usage-bootstrap-signing'] === 'true' ? bootstrapTokenExpiry(data) : undefined))
      .filter((expiry): expiry is number => expiry !== undefined && expiry >= now);
    if (expiries.length > 0) timer = setTimeout(resign, Math.min(Math.min(...expiries) - now + 1, MAX_WAIT_MS));
  };

  const resign = (): void => {
    if (stop.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    sign()
      .catch(() => setTimeout(resign, RETRY_MS))
      .finally(() => {
        running = false;
        armExpiryTimer();
        if (again) {
          again = false;
          resign();
        }
      });
  };

  const secretInformer = startInformer(
    operations.storageFor(coreType(operations, 'secrets')),
    { onUpsert: () => resign(), onDelete: () => resign() },
    { namespace: BOOTSTRAP_NAMESPACE },
  );
  const configMapInformer = startInformer(
    operations.storageFor(configMaps),
    { onUpsert: (object) => object.metadata.name === CLUSTER_INFO_NAME && resign() },
    { namespace: CLUSTER_INFO_NAMESPACE },
  );
  void Promise.all([secretInformer.synced, configMapInformer.synced]).then(resign);
  stop.addEventListener(
    'abort',
    () => {
      clearTimeout(timer);
      secretInformer.stop();
      configMapInformer.stop();
    },
    { once: true },
  );
}
