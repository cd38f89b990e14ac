/**
 * The three calls of a KMS v2 plugin (`v2.KeyManagementService`), each timed into the
 * reference's `apiserver_envelope_encryption_kms_operations_latency_seconds`.
 */
import { GrpcStatusError, GrpcUnixClient } from '../../grpc/unix-client';
import {
  decodeDecryptResponse,
  decodeEncryptResponse,
  decodeStatusResponse,
  encodeDecryptRequest,
  encodeEncryptRequest,
  type EncryptResponse,
  type StatusResponse,
} from './messages';

const SERVICE = '/v2.KeyManagementService';

export interface KmsOperationRecord {
  readonly provider: string;
  /** The full gRPC method, as the reference's interceptor labels it. */
  readonly method: string;
  readonly seconds: number;
  readonly codeName: string;
}

export class KmsService {
  private readonly client: GrpcUnixClient;

  constructor(
    private readonly options: {
      socketPath: string;
      provider: string;
      timeoutMs: number;
      record: (operation: KmsOperationRecord) => void;
    },
  ) {
    this.client = new GrpcUnixClient(options.socketPath);
  }

  async status(): Promise<StatusResponse> {
    return decodeStatusResponse(await this.call('Status', Buffer.alloc(0)));
  }

  async encrypt(plaintext: Buffer, uid: string): Promise<EncryptResponse> {
    return decodeEncryptResponse(await this.call('Encrypt', encodeEncryptRequest({ plaintext, uid })));
  }

  async decrypt(
    request: { ciphertext: Buffer; keyID: string; annotations: ReadonlyMap<string, Buffer> },
    uid: string,
  ): Promise<Buffer> {
    return decodeDecryptResponse(await this.call('Decrypt', encodeDecryptRequest({ ...request, uid })));
  }

  close(): void {
    this.client.close();
  }

  private async call(name: string, request: Buffer): Promise<Buffer> {
    const method = `${SERVICE}/${name}`;
    const startedAt = performance.now();
    let codeName = 'OK';
    try {
      return await this.client.call({ method, request, timeoutMs: this.options.timeoutMs });
    } catch (error) {
      codeName = error instanceof GrpcStatusError ? error.codeName : 'Unknown';
      throw error;
    } finally {
      this.options.record({
        provider: this.options.provider,
        method,
        seconds: (performance.now() - startedAt) / 1000,
        codeName,
      });
    }
  }
}
