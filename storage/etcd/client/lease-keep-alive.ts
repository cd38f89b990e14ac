/**
 * etcd's LeaseKeepAlive call: a bidirectional stream where each lease ID sent renews that
 * lease, and etcd answers with its new TTL.
 */
import type { DuplexStream, StreamHandlers } from './channel';
import { EtcdCallError, GrpcStatus } from './call-error';
import { decodeLeaseKeepAliveResponse, encodeLeaseIdRequest } from './messages';

interface PendingRenewal {
  readonly resolve: (ttl: number) => void;
  readonly reject: (error: Error) => void;
}

export class LeaseKeepAliveStream {
  /** Renewals waiting for etcd's answer, by lease ID (etcd answers each in order). */
  private readonly pending = new Map<bigint, PendingRenewal[]>();
  private ended: Error | undefined;
  private stream!: DuplexStream;

  private constructor() {}

  static async open(openDuplex: (handlers: StreamHandlers) => Promise<DuplexStream>): Promise<LeaseKeepAliveStream> {
    const keepAlive = new LeaseKeepAliveStream();
    keepAlive.stream = await openDuplex({
      onMessage: (message) => keepAlive.onAnswer(message),
      onEnd: (error) => keepAlive.onEnd(error ?? new Error('etcd ended the lease keep-alive stream')),
    });
    return keepAlive;
  }

  /** Renews the lease; resolves with its TTL in seconds (0 or less: the lease is gone). */
  renew(id: bigint, timeoutMs: number): Promise<number> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.onEnd(
          new EtcdCallError(
            '/etcdserverpb.Lease/LeaseKeepAlive',
            this.stream.endpoint,
            GrpcStatus.DEADLINE_EXCEEDED,
            `no answer within the deadline of ${timeoutMs} ms`,
            false,
          ),
        );
      }, timeoutMs);
      const waiting = this.pending.get(id) ?? [];
      waiting.push({
        resolve: (ttl) => {
          clearTimeout(timer);
          resolve(ttl);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.pending.set(id, waiting);
      this.stream.send(encodeLeaseIdRequest({ id }));
    });
  }

  close(): void {
    this.stream.close();
    this.onEnd(new Error('the lease keep-alive stream was closed'));
  }

  private onAnswer(message: Buffer): void {
    const answer = decodeLeaseKeepAliveResponse(message);
    const waiting = this.pending.get(answer.id);
    const renewal = waiting?.shift();
    if (waiting?.length === 0) this.pending.delete(answer.id);
    renewal?.resolve(answer.ttl);
  }

  private onEnd(error: Error): void {
    if (this.ended) return;
    this.ended = error;
    for (const waiting of this.pending.values()) for (const renewal of waiting) renewal.reject(error);
    this.pending.clear();
    this.stream?.close();
  }
}
