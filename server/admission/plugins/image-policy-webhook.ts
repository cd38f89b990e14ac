/**
 * The ImagePolicyWebhook plugin: a remote service decides which images pods may run. Each pod
 * create or update (and each change of its ephemeral containers) is sent as an
 * imagepolicy.k8s.io/v1alpha1 ImageReview (the images, the pod's `*.image-policy.k8s.io/*`
 * annotations, the namespace) to the webhook the configuration's kubeconfig names; its answer
 * is remembered for `allowTTL` or `denyTTL`. When the webhook cannot be reached, `defaultAllow`
 * decides: the pod is admitted, marked `alpha.image-policy.k8s.io/failed-open`, or refused.
 *
 * Configuration, in the file `--admission-control-config-file` names for the plugin (required):
 *   imagePolicy:
 *     kubeConfigFile: /path/to/webhook.kubeconfig
 *     allowTTL: 50        # seconds; 0 for the default (5m), -1 not to remember
 *     denyTTL: 50         # seconds; 0 for the default (30s), -1 not to remember
 *     retryBackoff: 500   # milliseconds; 0 for the default (500ms)
 *     defaultAllow: true
 */
import { goDuration } from '../../config/duration';
import { forbidden } from '../../status/catalogue';
import { postOnce, retryTransient, WebhookFailure } from '../../webhook-client/backoff';
import { readWebhookKubeconfig } from '../../webhook-client/kubeconfig';
import type { PostDestination } from '../../webhook-client/post-json';
import { AdmissionConfigError } from '../config-error';
import { typeAgainstSchema, type Definitions } from '../../validation/decode';
import { GO_BOOL, GO_INT64, GO_STRING, goNamed, goStruct } from '../../validation/config-types';
import { refusedName } from '../refused-name';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

const FAILED = 'couldn\'t init admission plugin "ImagePolicyWebhook":';
const REVIEW_VERSION = 'imagepolicy.k8s.io/v1alpha1';
const AUDIT_PREFIX = 'imagepolicywebhook.image-policy.k8s.io/';
const FAILED_OPEN_ANNOTATION = 'alpha.image-policy.k8s.io/failed-open';
const CACHE_SIZE = 1024;
/** client-go's timeout for a webhook given by kubeconfig. */
const REQUEST_TIMEOUT_MS = 30_000;
const MS = 1e6;

export interface ImagePolicyConfiguration {
  readonly destination: PostDestination;
  readonly allowTtlMs: number;
  readonly denyTtlMs: number;
  readonly retryBackoffMs: number;
  readonly defaultAllow: boolean;
}

type Fields = Record<string, unknown>;
const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};

/**
 * The configuration with a number or boolean kubeConfigFile as its text: the plugin reads its
 * YAML with sigs.k8s.io/yaml's Unmarshal, which writes a scalar as a string where the Go field
 * is one.
 */
function withScalarFileName(configuration: unknown): unknown {
  const policy = record(record(configuration).imagePolicy);
  const file = policy.kubeConfigFile;
  if (typeof file !== 'number' && typeof file !== 'boolean') return configuration;
  return { ...record(configuration), imagePolicy: { ...policy, kubeConfigFile: String(file) } };
}

/** The reference's normalizeConfigDuration: -1 turns it off, 0 is the default, else `value` units within bounds. */
function duration(value: unknown, unitMs: number, minMs: number, maxMs: number, defaultMs: number) {
  // Typed already: a time.Duration, or absent.
  const given = typeof value === 'number' ? value : 0;
  if (given === -1) return 0;
  if (given === 0) return defaultMs;
  const ms = given * unitMs;
  if (ms < minMs || ms > maxMs)
    throw new AdmissionConfigError(
      `${FAILED} valid value is between ${goDuration(minMs * MS)} and ${goDuration(maxMs * MS)}, got ${goDuration(ms * MS)}`,
    );
  return ms;
}

/**
 * The plugin's Go types (plugin/pkg/admission/imagepolicy), as data: its decoder is lenient, so
 * only a value of the wrong JSON type stops the start, in Go's words.
 */
const CONFIG_ROOT = 'imagepolicy.AdmissionConfig';
const CONFIG_TYPES: Definitions = {
  [CONFIG_ROOT]: goStruct({ imagePolicy: goNamed('imagepolicy.imagePolicyWebhookConfig') }),
  'imagepolicy.imagePolicyWebhookConfig': goStruct({
    kubeConfigFile: GO_STRING,
    allowTTL: goNamed('time.Duration'),
    denyTTL: goNamed('time.Duration'),
    retryBackoff: goNamed('time.Duration'),
    defaultAllow: GO_BOOL,
  }),
  'time.Duration': GO_INT64,
};

export function imagePolicyConfiguration(configuration: unknown): ImagePolicyConfiguration {
  if (configuration === undefined) throw new AdmissionConfigError(`${FAILED} no config specified`);
  const typed = typeAgainstSchema(CONFIG_TYPES, CONFIG_ROOT, withScalarFileName(configuration));
  if (typed.typeError !== undefined) throw new AdmissionConfigError(`${FAILED} ${typed.typeError}`);
  const policy = record(record(typed.object).imagePolicy);
  const retryBackoffMs = duration(policy.retryBackoff, 1, 1e-6, 300_000, 500);
  const allowTtlMs = duration(policy.allowTTL, 1000, 1000, 1_800_000, 300_000);
  const denyTtlMs = duration(policy.denyTTL, 1000, 1000, 1_800_000, 30_000);
  let destination: PostDestination;
  try {
    destination = readWebhookKubeconfig(String(policy.kubeConfigFile ?? ''));
  } catch (error) {
    throw new AdmissionConfigError(`${FAILED} ${(error as Error).message}`);
  }
  return { destination, allowTtlMs, denyTtlMs, retryBackoffMs, defaultAllow: policy.defaultAllow === true };
}

interface ReviewStatus {
  readonly allowed: boolean;
  readonly reason?: string;
  readonly auditAnnotations?: Record<string, string>;
}

export function imagePolicyWebhookPlugin(configuration: ImagePolicyConfiguration): AdmissionPlugin {
  // Insertion order is use order: a hit is re-inserted, and the first entry is the least recently used.
  const cache = new Map<string, { status: ReviewStatus; expires: number }>();

  async function ask(review: object): Promise<ReviewStatus> {
    const call = async () => {
      const answer = await postOnce(
        configuration.destination,
        JSON.stringify(review),
        { timeoutMs: REQUEST_TIMEOUT_MS },
        (status) => `Error contacting webhook: ${status}`,
      );
      try {
        const status = record((JSON.parse(answer.body.toString('utf8')) as Fields).status);
        return {
          allowed: status.allowed === true,
          reason: typeof status.reason === 'string' ? status.reason : undefined,
          auditAnnotations: record(status.auditAnnotations) as Record<string, string>,
        };
      } catch (error) {
        throw new WebhookFailure((error as Error).message, false);
      }
    };
    return retryTransient(configuration.retryBackoffMs, call);
  }

  async function decide(attributes: AdmissionAttributes, spec: Fields): Promise<string | undefined> {
    const key = JSON.stringify(spec);
    const now = Date.now();
    let status = cache.get(key);
    if (status !== undefined && status.expires > now) {
      cache.delete(key);
      cache.set(key, status);
    } else {
      let answer: ReviewStatus;
      try {
        answer = await ask({ apiVersion: REVIEW_VERSION, kind: 'ImageReview', metadata: {}, spec, status: {} });
      } catch (error) {
        if (!configuration.defaultAllow) return (error as Error).message;
        attributes.auditAnnotations[`${AUDIT_PREFIX}failed-open`] = 'true';
        const metadata = attributes.object!.metadata;
        metadata.annotations = { ...metadata.annotations, [FAILED_OPEN_ANNOTATION]: 'true' };
        return undefined;
      }
      status = { status: answer, expires: now + (answer.allowed ? configuration.allowTtlMs : configuration.denyTtlMs) };
      cache.delete(key);
      cache.set(key, status);
      if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    const { allowed, reason, auditAnnotations } = status.status;
    for (const [name, value] of Object.entries(auditAnnotations ?? {}))
      attributes.auditAnnotations[`${AUDIT_PREFIX}${name}`] = String(value);
    if (allowed) return undefined;
    return reason
      ? `image policy webhook backend denied one or more images: ${reason}`
      : 'one or more images rejected by webhook backend';
  }

  return {
    name: 'ImagePolicyWebhook',
    async validate(attributes) {
      if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return;
      const sub = attributes.subResource;
      if (attributes.resource.group !== '' || attributes.resource.resource !== 'pods') return;
      if (sub !== '' && sub !== 'ephemeralcontainers') return;
      const pod = attributes.object!;
      const podSpec = record(pod.spec);
      const containers = (
        sub === ''
          ? [...((podSpec.containers as Fields[]) ?? []), ...((podSpec.initContainers as Fields[]) ?? [])]
          : ((podSpec.ephemeralContainers as Fields[]) ?? [])
      ).map((container) => ({ image: String(container.image ?? '') }));
      const annotations = Object.fromEntries(
        Object.entries(pod.metadata.annotations ?? {})
          .filter(([name]) => name.includes('.image-policy.k8s.io/'))
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
      const spec: Fields = {
        ...(containers.length > 0 ? { containers } : {}),
        ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
        ...(attributes.namespace !== '' ? { namespace: attributes.namespace } : {}),
      };
      const refusal = await decide(attributes, spec);
      if (refusal !== undefined) throw forbidden(attributes.resource, refusedName(attributes), refusal);
    },
  };
}
