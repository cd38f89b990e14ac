/**
 * One KMS v2 provider, as the reference runs it. A probe asks the plugin's Status every minute
 * (every 10 s while it fails); whenever the plugin reports a key ID other than the one in use,
 * a new DEK seed is generated here, encrypted by the plugin (Encrypt), and becomes the write
 * key. The write key is good for 3 minutes past the last healthy Status, so a plugin that has
 * gone away stops writes rather than letting them go on under a key it may have rotated.
 *
 * Values: `k8s:enc:kms:v2:<name>:` then an EncryptedObject (the sealed data, the key ID, the
 * encrypted DEK source, the plugin's annotations, the source type). Reads decrypt the DEK
 * source through the plugin (Decrypt) once and keep it for 24 hours; a value of another key
 * ID than the current one is stale, so an update rewrites it under the current key.
 */
import { randomBytes, randomUUID, createHash } from 'node:crypto';
import type { PrefixedTransformer, ReadResult, TransformContext, ValueTransformer } from '../transformer';
import { aggregateErrors } from '../transformer';
import { plainGcmKey, SEED_SIZE, seedKey, type DataKey } from './data-keys';
import { decodeEncryptedObject, EncryptedDEKSourceType, encodeEncryptedObject, type EncryptedObject } from './messages';
import { KmsService, type KmsOperationRecord } from './kms-service';
import { metaTime } from '../../../api/objects';

const WRITE_KEY_TTL_MS = 3 * 60_000;
const READ_KEY_TTL_MS = 24 * 60 * 60_000;
const HEALTHY_PROBE_INTERVAL_MS = 60_000;
const UNHEALTHY_PROBE_INTERVAL_MS = 10_000;
const POSITIVE_TTL_MS = 20_000;
const NEGATIVE_TTL_MS = 3_000;
const KEY_ID_MAX_SIZE = 1024;
const DEK_SOURCE_MAX_SIZE = 1024;
const ANNOTATIONS_MAX_SIZE = 32 * 1024;

/** What the provider reports for the reference's `apiserver_envelope_encryption_*` metrics. */
export interface EnvelopeObserver {
  operation(record: KmsOperationRecord): void;
  /** A value was read or written under this key ID. */
  keyIdUsed(type: 'from_storage' | 'to_storage', provider: string, keyId: string): void;
  keyIdFromStatus(provider: string, keyId: string): void;
  invalidKeyIdFromStatus(provider: string, errorCode: 'empty' | 'too_long'): void;
  cacheMiss(): void;
  cacheSize(provider: string, size: number): void;
  dataKeyGenerated(seconds: number | undefined): void;
}

export interface KmsV2ProviderOptions {
  readonly name: string;
  readonly socketPath: string;
  readonly timeoutMs: number;
  readonly observer: EnvelopeObserver;
  readonly log: (message: string) => void;
}

interface WriteState {
  readonly key: ReturnType<typeof seedKey>;
  readonly keyID: string;
  readonly encryptedDEKSource: Buffer;
  readonly annotations: ReadonlyMap<string, Buffer>;
  readonly expiresAt: number;
}

export class KmsV2Provider {
  readonly entry: PrefixedTransformer;
  private readonly service: KmsService;
  private state: WriteState | undefined;
  private readonly readKeys = new Map<string, { key: DataKey; expiresAt: number }>();
  private lastCheck: { error: Error | undefined; at: number; ttl: number } = { error: undefined, at: 0, ttl: 0 };
  private checking: Promise<void> | undefined;
  private version: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: KmsV2ProviderOptions) {
    this.service = new KmsService({
      socketPath: options.socketPath,
      provider: options.name,
      timeoutMs: options.timeoutMs,
      record: (operation) => options.observer.operation(operation),
    });
    this.entry = { prefix: Buffer.from(`k8s:enc:kms:v2:${options.name}:`), transformer: this.transformer() };
  }

  /** Probes once (a failure is logged, not thrown: the plugin may come up later) and keeps probing. */
  async prime(): Promise<void> {
    let healthy = true;
    try {
      await this.check();
    } catch (error) {
      healthy = false;
      this.options.log(`kms plugin failed health check probe name=${this.options.name}: ${(error as Error).message}`);
    }
    this.schedule(healthy ? HEALTHY_PROBE_INTERVAL_MS : UNHEALTHY_PROBE_INTERVAL_MS);
  }

  /** The health check: the last answer while fresh (20 s healthy, 3 s not), else a new Status. */
  check(): Promise<void> {
    const fresh = Date.now() - this.lastCheck.at < this.lastCheck.ttl;
    if (fresh) return this.lastCheck.error === undefined ? Promise.resolve() : Promise.reject(this.lastCheck.error);
    this.checking ??= this.probe().finally(() => (this.checking = undefined));
    return this.checking;
  }

  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.service.close();
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.check().then(
        () => this.schedule(HEALTHY_PROBE_INTERVAL_MS),
        (error: Error) => {
          this.options.log(`kms plugin failed health check probe name=${this.options.name}: ${error.message}`);
          this.schedule(UNHEALTHY_PROBE_INTERVAL_MS);
        },
      );
    }, delayMs);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    const name = this.options.name;
    let error: Error | undefined;
    try {
      let status;
      try {
        status = await this.service.status();
      } catch (cause) {
        throw new Error(
          `failed to perform status section of the healthz check for KMS Provider ${name}, error: ${(cause as Error).message}`,
        );
      }
      const problems: Error[] = [];
      if (status.healthz !== 'ok') problems.push(new Error(`got unexpected healthz status: ${status.healthz}`));
      if (status.version !== 'v2' && status.version !== 'v2beta1') {
        problems.push(new Error(`expected KMSv2 API version v2, got ${status.version}`));
      } else {
        this.version ??= status.version;
        if (this.version !== status.version)
          problems.push(
            new Error(
              `KMSv2 API version should not change after the initial status response version ${this.version}, got ${status.version}`,
            ),
          );
      }
      const keyIdProblem = keyIdError(status.keyID);
      if (keyIdProblem !== undefined) {
        this.options.observer.invalidKeyIdFromStatus(name, keyIdProblem.code);
        problems.push(
          new Error(
            `got invalid KMSv2 KeyID hash ${JSON.stringify(hashIfNotEmpty(status.keyID))}: ${keyIdProblem.message}`,
          ),
        );
      } else {
        this.options.observer.keyIdFromStatus(name, status.keyID);
        try {
          await this.rotateOnKeyIdChange(status.keyID);
        } catch (rotation) {
          problems.push(rotation as Error);
        }
      }
      if (problems.length > 0)
        throw new Error(`kmsv2 Provider ${name} is not healthy, error: ${aggregateErrors(problems).message}`);
    } catch (failure) {
      error = failure as Error;
    }
    this.lastCheck = { error, at: Date.now(), ttl: error === undefined ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS };
    if (error !== undefined) throw error;
  }

  /** Keeps the write key while the plugin's key ID is the same (extending its life), else makes a new one. */
  private async rotateOnKeyIdChange(statusKeyId: string): Promise<void> {
    const expiresAt = Date.now() + WRITE_KEY_TTL_MS;
    if (this.state !== undefined && this.state.keyID === statusKeyId) {
      this.state = { ...this.state, expiresAt };
      return;
    }
    const startedAt = performance.now();
    const seed = randomBytes(SEED_SIZE);
    this.options.observer.dataKeyGenerated((performance.now() - startedAt) / 1000);
    let response;
    try {
      response = await this.service.encrypt(seed, randomUUID());
    } catch (error) {
      throw new Error(`failed to rotate DEK: failed to encrypt DEK, error: ${(error as Error).message}`);
    }
    const invalid = validationError({
      encryptedData: Buffer.of(0),
      keyID: response.keyID,
      encryptedDEKSource: response.ciphertext,
      annotations: response.annotations,
      encryptedDEKSourceType: EncryptedDEKSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED,
    });
    if (invalid !== undefined) throw new Error(`failed to rotate DEK: ${invalid}`);
    if (response.keyID !== statusKeyId) {
      throw new Error(
        `failed to rotate DEK: statusKeyIDHash=${JSON.stringify(hashIfNotEmpty(statusKeyId))}, encryptKeyIDHash=${JSON.stringify(hashIfNotEmpty(response.keyID))}`,
      );
    }
    const key = seedKey(seed);
    this.state = {
      key,
      keyID: response.keyID,
      encryptedDEKSource: response.ciphertext,
      annotations: response.annotations,
      expiresAt,
    };
    // The new seed reads what it writes without asking the plugin.
    this.cacheReadKey(
      cacheKeyOf({ encryptedDEKSourceType: EncryptedDEKSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED, ...this.state }),
      key,
    );
  }

  private currentState(): WriteState {
    if (this.state === undefined) throw new Error('got unexpected nil transformer');
    return this.state;
  }

  private cacheReadKey(cacheKey: string, key: DataKey): void {
    this.readKeys.set(cacheKey, { key, expiresAt: Date.now() + READ_KEY_TTL_MS });
    this.options.observer.cacheSize(this.options.name, this.readKeys.size);
  }

  private transformer(): ValueTransformer {
    return {
      fromStorage: (data, context) => this.read(data, context),
      toStorage: (data, context) => this.write(data, context),
    };
  }

  private async read(data: Buffer, context: TransformContext): Promise<ReadResult> {
    let object: EncryptedObject;
    try {
      object = decodeEncryptedObject(data);
    } catch (error) {
      throw new Error(`proto: cannot parse invalid wire-format data: ${(error as Error).message}`);
    }
    const invalid = validationError(object);
    if (invalid !== undefined) throw new Error(invalid);
    const state = this.currentState();
    const cacheKey = cacheKeyOf(object);
    let key = this.readKeys.get(cacheKey);
    if (key !== undefined && key.expiresAt < Date.now()) {
      this.readKeys.delete(cacheKey);
      key = undefined;
    }
    if (key === undefined) {
      this.options.observer.cacheMiss();
      let source: Buffer;
      try {
        source = await this.service.decrypt(
          { ciphertext: object.encryptedDEKSource, keyID: object.keyID, annotations: object.annotations },
          randomUUID(),
        );
      } catch (error) {
        throw new Error(`failed to decrypt DEK, error: ${(error as Error).message}`);
      }
      const dataKey =
        object.encryptedDEKSourceType === EncryptedDEKSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED
          ? seedKey(source)
          : plainGcmKey(source);
      this.cacheReadKey(cacheKey, dataKey);
      key = this.readKeys.get(cacheKey)!;
    }
    this.options.observer.keyIdUsed('from_storage', this.options.name, object.keyID);
    const plain = key.key.open(object.encryptedData, context);
    return {
      data: plain,
      stale:
        object.keyID !== state.keyID ||
        object.encryptedDEKSourceType !== EncryptedDEKSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED,
    };
  }

  private async write(data: Buffer, context: TransformContext): Promise<Buffer> {
    const state = this.currentState();
    const now = Date.now();
    if (now > state.expiresAt) {
      throw new Error(
        `encryptedDEKSource with keyID hash ${JSON.stringify(hashIfNotEmpty(state.keyID))} expired at ${metaTime(new Date(state.expiresAt))} (current time is ${metaTime(new Date(now))})`,
      );
    }
    const encryptedData = state.key.seal(data, context);
    this.options.observer.keyIdUsed('to_storage', this.options.name, state.keyID);
    return encodeEncryptedObject({
      encryptedData,
      keyID: state.keyID,
      encryptedDEKSource: state.encryptedDEKSource,
      annotations: state.annotations,
      encryptedDEKSourceType: EncryptedDEKSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED,
    });
  }
}

/** The reference's checks of an EncryptedObject, in its order and words. */
function validationError(object: EncryptedObject): string | undefined {
  if (
    object.encryptedDEKSourceType !== EncryptedDEKSourceType.AES_GCM_KEY &&
    object.encryptedDEKSourceType !== EncryptedDEKSourceType.HKDF_SHA256_XNONCE_AES_GCM_SEED
  ) {
    return `unknown encryptedDEKSourceType: ${object.encryptedDEKSourceType}`;
  }
  if (object.encryptedData.length === 0) return 'encrypted data is empty';
  if (object.encryptedDEKSource.length === 0)
    return 'failed to validate encrypted DEK source: encrypted DEK source is empty';
  if (object.encryptedDEKSource.length > DEK_SOURCE_MAX_SIZE) {
    return `failed to validate encrypted DEK source: encrypted DEK source is ${object.encryptedDEKSource.length} bytes, which exceeds the max size of ${DEK_SOURCE_MAX_SIZE}`;
  }
  const keyId = keyIdError(object.keyID);
  if (keyId !== undefined) return `failed to validate key id: ${keyId.message}`;
  let annotationsSize = 0;
  for (const [name, value] of object.annotations) {
    const invalidName = domainNameError(name);
    if (invalidName !== undefined)
      return `failed to validate annotations: annotations: Invalid value: ${JSON.stringify(name)}: ${invalidName}`;
    annotationsSize += Buffer.byteLength(name) + value.length;
  }
  if (annotationsSize > ANNOTATIONS_MAX_SIZE) {
    return `failed to validate annotations: total size of annotations is ${annotationsSize}, which exceeds the max size of ${ANNOTATIONS_MAX_SIZE}`;
  }
  return undefined;
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** An annotation key must be a fully qualified domain name, as the reference's IsFullyQualifiedDomainName has it. */
function domainNameError(name: string): string | undefined {
  if (name.length > 253) return 'must be no more than 253 characters';
  if (!SUBDOMAIN.test(name)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  if (!name.includes('.')) return 'should be a domain with at least two segments separated by dots';
  return undefined;
}

function keyIdError(keyId: string): { code: 'empty' | 'too_long'; message: string } | undefined {
  if (keyId.length === 0) return { code: 'empty', message: 'keyID is empty' };
  if (Buffer.byteLength(keyId) > KEY_ID_MAX_SIZE)
    return {
      code: 'too_long',
      message: `keyID is ${Buffer.byteLength(keyId)} bytes, which exceeds the max size of ${KEY_ID_MAX_SIZE}`,
    };
  return undefined;
}

/** What identifies a DEK source: its type, the encrypted source, the key ID and the annotations (sorted), each length-prefixed. */
function cacheKeyOf(
  object: Pick<EncryptedObject, 'encryptedDEKSourceType' | 'encryptedDEKSource' | 'keyID' | 'annotations'>,
): string {
  const hash = createHash('sha256').update(Buffer.of(object.encryptedDEKSourceType));
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  };
  field(object.encryptedDEKSource);
  field(Buffer.from(object.keyID));
  for (const name of [...object.annotations.keys()].sort()) {
    field(Buffer.from(name));
    field(object.annotations.get(name)!);
  }
  return hash.digest('hex');
}

export function hashIfNotEmpty(text: string): string {
  return text === '' ? '' : `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
