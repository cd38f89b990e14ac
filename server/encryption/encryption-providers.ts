/**
 * Builds the transformers of an EncryptionConfiguration, as the reference does: per provider
 * a prefix (`k8s:enc:aescbc:v1:`, ...) and within it one entry per key (`<name>:`), the
 * providers of each resource entry in order, and a resource named by an earlier entry's
 * wildcard (`*.apps`, `*.*`) refused as masked. A resource the configuration does not name
 * gets the identity check, which refuses to read encrypted values.
 */
import { aesCbcTransformer, aesGcmTransformer } from '../../storage/transform/aes';
import { IDENTITY_TRANSFORMER } from '../../storage/transform/identity';
import { PrefixTransformers, type TransformationRecorder } from '../../storage/transform/prefix-transformers';
import { secretboxTransformer } from '../../storage/transform/secretbox';
import type { PrefixedTransformer, ValueTransformer } from '../../storage/transform/transformer';
import {
  decodeStdBase64,
  parseGroupResource,
  type EncryptionConfiguration,
  type KeysConfiguration,
  type ProviderConfiguration,
} from './encryption-config';
import { EncryptionConfigError } from './config-error';

export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** Builds a KMS provider's entry (kms-providers.ts). */
export type KmsProviderFactory = (kms: NonNullable<ProviderConfiguration['kms']>) => PrefixedTransformer;

export interface BuiltTransformers {
  /** The transformer of a stored resource (its storage group and resource). */
  transformerFor(resource: GroupResource): ValueTransformer;
}

const ANY = '*';

export function buildTransformers(
  config: Pick<EncryptionConfiguration, 'resources'>,
  options: { record: TransformationRecorder; kms: KmsProviderFactory },
): BuiltTransformers {
  const byResource = new Map<string, PrefixedTransformer[]>();
  for (const resourceConfig of config.resources) {
    const entries = resourceConfig.providers.map((provider) => providerEntry(provider, options));
    for (const name of resourceConfig.resources) {
      const gr = parseGroupResource(name);
      for (const wildcard of [
        { group: gr.group, resource: ANY },
        { group: ANY, resource: ANY },
      ]) {
        if (byResource.has(keyOf(wildcard))) {
          throw new EncryptionConfigError(
            `error while building transformers: resource ${JSON.stringify(yamlName(gr))} is masked by earlier rule ${JSON.stringify(yamlName(wildcard))}`,
          );
        }
      }
      byResource.set(keyOf(gr), [...(byResource.get(keyOf(gr)) ?? []), ...entries]);
    }
  }
  const transformers = new Map<string, ValueTransformer>();
  for (const [key, entries] of byResource)
    transformers.set(key, new PrefixTransformers(entries, new Error('no matching prefix found'), options.record));
  return {
    transformerFor: (resource) =>
      transformers.get(keyOf(resource)) ??
      transformers.get(keyOf({ group: resource.group, resource: ANY })) ??
      transformers.get(keyOf({ group: ANY, resource: ANY })) ??
      IDENTITY_TRANSFORMER,
  };
}

/** The providers with named keys, each writing under `k8s:enc:<name>:v1:`, in the order they are looked for. */
const KEYED_PROVIDERS = [
  { name: 'aesgcm', make: aesGcmTransformer, noKey: 'AES' },
  { name: 'aescbc', make: aesCbcTransformer, noKey: 'AES' },
  { name: 'secretbox', make: secretboxTransformer, noKey: 'Secretbox' },
] as const;

function providerEntry(
  provider: ProviderConfiguration,
  options: { record: TransformationRecorder; kms: KmsProviderFactory },
): PrefixedTransformer {
  for (const { name, make, noKey } of KEYED_PROVIDERS) {
    const keys = provider[name];
    if (keys) return keyedEntry({ prefix: `k8s:enc:${name}:v1:`, keys, make, noKey, record: options.record });
  }
  if (provider.kms) return options.kms(provider.kms);
  return { prefix: Buffer.alloc(0), transformer: IDENTITY_TRANSFORMER };
}

/** A provider with named keys: the first key writes, any of them reads a value under its name. */
function keyedEntry(spec: {
  prefix: string;
  keys: KeysConfiguration;
  make: (key: Buffer) => ValueTransformer;
  noKey: string;
  record: TransformationRecorder;
}): PrefixedTransformer {
  // Validation has checked every secret's encoding and length.
  const entries = spec.keys.keys.map((key) => ({
    prefix: Buffer.from(`${key.name}:`),
    transformer: spec.make(decodeStdBase64(key.secret)!),
  }));
  return {
    prefix: Buffer.from(spec.prefix),
    transformer: new PrefixTransformers(
      entries,
      new Error(`no matching key was found for the provided ${spec.noKey} transformer`),
      spec.record,
    ),
  };
}

function keyOf(gr: GroupResource): string {
  return `${gr.group}/${gr.resource}`;
}

/** A group-resource as the configuration spells it: `*.` for the core group's wildcard. */
function yamlName(gr: GroupResource): string {
  return gr.group === '' && gr.resource === ANY ? '*.' : resourceLabel(gr);
}

/** The resource label of the transformation metrics: `secrets`, `deployments.apps`. */
export function resourceLabel(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}
