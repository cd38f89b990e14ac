/**
 * One KMS v1 provider, as the reference runs it: the envelope (envelope.ts) under
 * `k8s:enc:kms:v1:<name>:` over a plugin connection, and its health probe. Nothing is asked of
 * the plugin at start; the probe runs when a health check asks, encrypting `ping` and decrypting
 * the answer, and its result is kept 20 s when healthy and 3 s when not (within that time the
 * plugin's error is answered bare, as the reference's probe does).
 */
import type { PrefixedTransformer } from '../transformer';
import { envelopeV1Transformer, type EnvelopeV1Observer } from './envelope';
import { KmsV1Service } from './kms-v1-service';

const POSITIVE_TTL_MS = 20_000;
const NEGATIVE_TTL_MS = 3_000;
const PROBE_DATA = Buffer.from('ping');

export interface KmsV1ProviderOptions {
  readonly name: string;
  readonly socketPath: string;
  readonly timeoutMs: number;
  readonly cacheSize: number;
  readonly observer: EnvelopeV1Observer;
}

export class KmsV1Provider {
  readonly entry: PrefixedTransformer;
  private readonly service: KmsV1Service;
  private lastCheck: { error: Error | undefined; at: number; ttl: number } = {
    error: undefined,
    at: 0,
    ttl: NEGATIVE_TTL_MS,
  };
  private checking: Promise<void> | undefined;

  constructor(private readonly options: KmsV1ProviderOptions) {
    this.service = new KmsV1Service(options.socketPath, options.timeoutMs);
    this.entry = {
      prefix: Buffer.from(`k8s:enc:kms:v1:${options.name}:`),
      transformer: envelopeV1Transformer({
        service: this.service,
        cacheSize: options.cacheSize,
        observer: options.observer,
      }),
    };
  }

  /** The health check; checks asked while one runs share its answer. */
  check(): Promise<void> {
    if (Date.now() - this.lastCheck.at < this.lastCheck.ttl)
      return this.lastCheck.error === undefined ? Promise.resolve() : Promise.reject(this.lastCheck.error);
    this.checking ??= this.probe().finally(() => (this.checking = undefined));
    return this.checking;
  }

  close(): void {
    this.service.close();
  }

  private async probe(): Promise<void> {
    const failed = (section: 'encrypt' | 'decrypt', error: Error) => {
      this.lastCheck = { error, at: Date.now(), ttl: NEGATIVE_TTL_MS };
      return new Error(
        `failed to perform ${section} section of the healthz check for KMS Provider ${this.options.name}, error: ${error.message}`,
      );
    };
    let cipher: Buffer;
    try {
      cipher = await this.service.encrypt(PROBE_DATA);
    } catch (error) {
      throw failed('encrypt', error as Error);
    }
    try {
      await this.service.decrypt(cipher);
    } catch (error) {
      throw failed('decrypt', error as Error);
    }
    this.lastCheck = { error: undefined, at: Date.now(), ttl: POSITIVE_TTL_MS };
  }
}
