/**
 * The calls of a KMS v1 plugin (`v1beta1.KeyManagementService`), as the reference's client makes
 * them: before its first Encrypt or Decrypt it asks the plugin's Version, which must be
 * `v1beta1`, and asks again until once answered so; that check shares the call's deadline.
 * Plugin errors come back as the plugin's gRPC status, unwrapped, so the transformation
 * metrics count them under their code, as the reference's do.
 */
import { GrpcUnixClient } from '../../grpc/unix-client';
import { decodeDataResponse, decodeVersionResponse, encodeDataRequest, encodeVersionRequest } from './messages';

const SERVICE = '/v1beta1.KeyManagementService';
export const KMS_V1_API_VERSION = 'v1beta1';

/** What the envelope needs of a plugin: the reference's envelope.Service. */
export interface EnvelopeService {
  encrypt(plain: Buffer): Promise<Buffer>;
  decrypt(cipher: Buffer): Promise<Buffer>;
}

export class KmsV1Service implements EnvelopeService {
  private readonly client: GrpcUnixClient;
  private versionCheck: Promise<void> | undefined;
  private versionChecked = false;

  constructor(
    socketPath: string,
    private readonly timeoutMs: number,
  ) {
    this.client = new GrpcUnixClient(socketPath);
  }

  async encrypt(plain: Buffer): Promise<Buffer> {
    return this.call('Encrypt', plain);
  }

  async decrypt(cipher: Buffer): Promise<Buffer> {
    return this.call('Decrypt', cipher);
  }

  close(): void {
    this.client.close();
  }

  private async call(name: 'Encrypt' | 'Decrypt', data: Buffer): Promise<Buffer> {
    const deadline = Date.now() + this.timeoutMs;
    await this.checkVersion(deadline);
    const response = await this.client.call({
      method: `${SERVICE}/${name}`,
      request: encodeDataRequest({ version: KMS_V1_API_VERSION, data }),
      timeoutMs: Math.max(1, deadline - Date.now()),
    });
    return decodeDataResponse(response);
  }

  /** One check at a time; callers arriving meanwhile share its answer, and a failure is asked again next time. */
  private checkVersion(deadline: number): Promise<void> {
    if (this.versionChecked) return Promise.resolve();
    this.versionCheck ??= this.askVersion(deadline).finally(() => (this.versionCheck = undefined));
    return this.versionCheck;
  }

  private async askVersion(deadline: number): Promise<void> {
    let version: string;
    try {
      const response = await this.client.call({
        method: `${SERVICE}/Version`,
        request: encodeVersionRequest(KMS_V1_API_VERSION),
        timeoutMs: Math.max(1, deadline - Date.now()),
      });
      version = decodeVersionResponse(response).version;
    } catch (error) {
      throw new Error(`failed get version from remote KMS provider: ${(error as Error).message}`);
    }
    if (version !== KMS_V1_API_VERSION)
      throw new Error(
        `KMS provider api version ${version} is not supported, only ${KMS_V1_API_VERSION} is supported now`,
      );
    this.versionChecked = true;
  }
}
