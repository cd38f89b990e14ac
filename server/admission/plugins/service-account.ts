/**
 * The ServiceAccount plugin: a new Pod runs as a ServiceAccount of its namespace (`default` when
 * it names none), which must exist; unless the pod or the account opts out, every container and
 * init container mounts the projected API credentials (a bound token, the cluster CA, the
 * namespace) at the well-known path; the account's image pull secrets fill a pod that has none;
 * an account annotated `kubernetes.io/enforce-mountable-secrets` limits the secrets the pod may
 * use; and mirror pods (the kubelet's copies of static pods) may reference no account, secret or
 * token projection at all.
 */
import { ObjectError } from '../../../storage/errors';
import type { ObjectStorage } from '../../../storage/objects/types';
import { podSecretNames } from '../../authz/node/pod-references';
import { isMirrorPod } from '../../registry/kinds/mirror-pod';
import { generateName } from '../../registry/store/object-meta';
import { forbidden } from '../../status/catalogue';
import { writes, type StorageOf } from '../lookup';
import { refusedName } from '../refused-name';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

import type { KubeObject } from '../../../api/objects';
type Fields = Record<string, unknown>;

const DEFAULT_ACCOUNT = 'default';
const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';
const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
/** The reference's bound-token lifetime that its token authenticator only warns about when past (1h + 7s). */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** The `default` account is made by a controller just after its namespace: ask again for a while. */
const DEFAULT_ACCOUNT_ATTEMPTS = 10;

const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
const list = (value: unknown): Fields[] => (Array.isArray(value) ? value.map(record) : []);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tokenVolume(name: string): Fields {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        {
          downwardAPI: {
            items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
          },
        },
      ],
      defaultMode: 0o644,
    },
  };
}

async function readAccount(
  accounts: ObjectStorage,
  namespace: string,
  name: string,
  resourceVersion: string,
): Promise<KubeObject | undefined> {
  try {
    return await accounts.get({ namespace, name }, { resourceVersion });
  } catch (error) {
    if (error instanceof ObjectError && error.reason === 'NotFound') return undefined;
    throw error;
  }
}

/** The account from the cache, else from the store: once, or for `default` ten times 100-200 ms apart. */
async function findAccount(accounts: ObjectStorage, namespace: string, name: string): Promise<KubeObject | undefined> {
  const cached = await readAccount(accounts, namespace, name, '0');
  if (cached !== undefined) return cached;
  const attempts = name === DEFAULT_ACCOUNT ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
  const pause = 100 + Math.floor(Math.random() * 100);
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await sleep(pause);
    const found = await readAccount(accounts, namespace, name, '');
    if (found !== undefined) return found;
  }
  return undefined;
}

function shouldMountToken(account: KubeObject, spec: Fields): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

/** Every init container and container that mounts nothing at the token path mounts the token volume. */
function mountToken(spec: Fields): void {
  const volumes = list(spec.volumes);
  const existing = volumes.find((volume) => String(volume.name ?? '').startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = existing === undefined ? generateName(TOKEN_VOLUME_PREFIX) : String(existing.name);
  let mounted = false;
  for (const container of [...list(spec.initContainers), ...list(spec.containers)]) {
    const mounts = list(container.volumeMounts);
    if (mounts.some((mount) => mount.mountPath === TOKEN_MOUNT_PATH)) continue;
    container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
    mounted = true;
  }
  if (existing === undefined && mounted) spec.volumes = [...volumes, tokenVolume(volumeName)];
}

function mirrorPodRefusal(pod: KubeObject): string | undefined {
  const spec = record(pod.spec);
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '')
    return 'a mirror pod may not reference service accounts';
  if (podSecretNames(pod).length > 0) return 'a mirror pod may not reference secrets';
  for (const volume of list(spec.volumes)) {
    if (
      list(record(volume.projected).sources).some(
        (source) => source.serviceAccountToken !== undefined && source.serviceAccountToken !== null,
      )
    ) {
      return 'a mirror pod may not use ServiceAccountToken volume projections';
    }
  }
  return undefined;
}

/** The first secret the pod uses that an account enforcing mountable secrets does not list, as the reference words it. */
function unlistedSecret(
  account: KubeObject,
  spec: Fields,
  containerKinds: ReadonlyArray<readonly [string, string]>,
): string | undefined {
  const accountName = account.metadata.name;
  const mountable = new Set(list(account.secrets).map((secret) => secret.name));
  const notAllowed = `is not allowed because service account ${accountName} does not reference that secret`;
  for (const volume of list(spec.volumes)) {
    const secret = record(volume.secret);
    if (volume.secret !== undefined && !mountable.has(secret.secretName))
      return `volume with secret.secretName="${String(secret.secretName ?? '')}" ${notAllowed}`;
  }
  for (const [field, label] of containerKinds) {
    for (const container of list(spec[field])) {
      for (const env of list(container.env)) {
        const ref = record(record(env.valueFrom).secretKeyRef);
        if (Object.keys(ref).length > 0 && !mountable.has(ref.name)) {
          return `${label} ${String(container.name)} with envVar ${String(env.name)} referencing secret.secretName="${String(ref.name ?? '')}" ${notAllowed}`;
        }
      }
      for (const envFrom of list(container.envFrom)) {
        const ref = record(envFrom.secretRef);
        if (Object.keys(ref).length > 0 && !mountable.has(ref.name)) {
          return `${label} ${String(container.name)} with envFrom referencing secret.secretName="${String(ref.name ?? '')}" ${notAllowed}`;
        }
      }
    }
  }
  if (containerKinds.some(([field]) => field === 'ephemeralContainers')) return undefined;
  const pullSecrets = new Set(list(account.imagePullSecrets).map((secret) => secret.name));
  for (const [index, reference] of list(spec.imagePullSecrets).entries()) {
    if (!pullSecrets.has(reference.name)) {
      return `imagePullSecrets[${index}].name="${String(reference.name ?? '')}" is not allowed because service account ${accountName} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}

/** The spellings of true Go's strconv.ParseBool accepts, which reads the annotation in the reference. */
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const enforcesMountableSecrets = (account: KubeObject) =>
  GO_TRUE.has(account.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION] ?? '');

export function serviceAccountPlugin(storageOf: StorageOf): AdmissionPlugin {
  const accounts = () => storageOf('', 'serviceaccounts');
  const applies = (attributes: AdmissionAttributes) =>
    attributes.resource.group === '' &&
    attributes.resource.resource === 'pods' &&
    attributes.object !== undefined &&
    (attributes.subResource === '' || attributes.subResource === 'ephemeralcontainers');
  const refuse = (attributes: AdmissionAttributes, reason: string) =>
    forbidden(attributes.resource, refusedName(attributes), reason);

  function refuseMirrorPod(attributes: AdmissionAttributes, pod: KubeObject): void {
    const refusal = mirrorPodRefusal(pod);
    if (refusal !== undefined) throw refuse(attributes, refusal);
  }

  async function accountOf(attributes: AdmissionAttributes, name: string): Promise<KubeObject> {
    const account = await findAccount(accounts(), attributes.namespace, name);
    if (account === undefined)
      throw refuse(
        attributes,
        `error looking up service account ${attributes.namespace}/${name}: serviceaccount "${name}" not found`,
      );
    return account;
  }

  return {
    name: 'ServiceAccount',
    async admit(attributes) {
      if (!applies(attributes) || attributes.operation !== 'CREATE' || !writes(attributes, '', 'pods')) return;
      const pod = attributes.object!;
      // A mirror pod's spec is the kubelet's and is left as it is; what it may not reference is
      // refused here already, as the reference's Admit validates it, before the strategy's checks.
      if (isMirrorPod(pod)) return refuseMirrorPod(attributes, pod);
      const spec = (pod.spec ??= {}) as Fields;
      if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '')
        spec.serviceAccountName = DEFAULT_ACCOUNT;
      // The v1 form keeps the deprecated field equal to the name, as the reference's conversion writes it.
      spec.serviceAccount = spec.serviceAccountName;
      const account = await accountOf(attributes, spec.serviceAccountName as string);
      if (shouldMountToken(account, spec)) mountToken(spec);
      if (list(spec.imagePullSecrets).length === 0 && list(account.imagePullSecrets).length > 0) {
        spec.imagePullSecrets = list(account.imagePullSecrets).map((secret) => ({ name: secret.name }));
      }
    },
    async validate(attributes) {
      if (!applies(attributes)) return;
      const pod = attributes.object!;
      const spec = record(pod.spec);
      const accountName = typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '';
      const noAccount = () =>
        refuse(attributes, `no service account specified for pod ${attributes.namespace}/${pod.metadata.name}`);
      if (attributes.operation === 'UPDATE' && attributes.subResource === 'ephemeralcontainers') {
        if (accountName === '') throw noAccount();
        const account = await accountOf(attributes, accountName);
        const refusal = enforcesMountableSecrets(account)
          ? unlistedSecret(account, spec, [['ephemeralContainers', 'ephemeral container']])
          : undefined;
        // A 403 as for a pod's own containers: the reference's plugin returns this one without
        // admission.NewForbidden, so its client sees a bare 500 for what is bad input.
        if (refusal !== undefined) throw refuse(attributes, refusal);
        return;
      }
      if (attributes.operation !== 'CREATE' || attributes.subResource !== '') return;
      if (isMirrorPod(pod)) return refuseMirrorPod(attributes, pod);
      if (accountName === '') throw noAccount();
      const account = await accountOf(attributes, accountName);
      const refusal = enforcesMountableSecrets(account)
        ? unlistedSecret(account, spec, [
            ['initContainers', 'init container'],
            ['containers', 'container'],
          ])
        : undefined;
      if (refusal !== undefined) throw refuse(attributes, refusal);
    },
  };
}
