/**
 * capstan's etcd v3 client: the KV, Watch, Lease and Maintenance calls the etcd store makes,
 * over one `Channel` (HTTP/2, failover among members). Each unary call has a deadline (the
 * client's default, or the call's own).
 *
 *   const client = new EtcdClient({ endpoints: ['http://127.0.0.1:2379'] });
 *   const { kvs } = await client.range({ key: Buffer.from('/registry/pods/'), rangeEnd: ... });
 *   client.close();
 *
 * Failures are `EtcdCallError`s carrying etcd's gRPC status and message.
 */
import { Channel, type ChannelTls, type KeepAlive } from './channel';
import * as messages from './messages';
import { LeaseKeepAliveStream } from './lease-keep-alive';
import { WatchStream, type WatchStreamHandlers } from './watch-stream';

export interface EtcdClientOptions {
  readonly endpoints: readonly string[];
  readonly tls?: ChannelTls;
  /** Deadline of each unary call unless the call gives its own (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** Pings that find a member gone silent (default: the reference's 30 s, 10 s). */
  readonly keepAlive?: KeepAlive;
}

export interface CallOptions {
  readonly timeoutMs?: number;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

const Methods = {
  range: '/etcdserverpb.KV/Range',
  put: '/etcdserverpb.KV/Put',
  deleteRange: '/etcdserverpb.KV/DeleteRange',
  txn: '/etcdserverpb.KV/Txn',
  compact: '/etcdserverpb.KV/Compact',
  watch: '/etcdserverpb.Watch/Watch',
  leaseGrant: '/etcdserverpb.Lease/LeaseGrant',
  leaseRevoke: '/etcdserverpb.Lease/LeaseRevoke',
  leaseKeepAlive: '/etcdserverpb.Lease/LeaseKeepAlive',
  status: '/etcdserverpb.Maintenance/Status',
} as const;

export class EtcdClient {
  private readonly channel: Channel;
  private readonly timeoutMs: number;

  constructor(options: EtcdClientOptions) {
    this.channel = new Channel({ endpoints: options.endpoints, tls: options.tls, keepAlive: options.keepAlive });
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** The member calls go to now. */
  get endpoint(): string {
    return this.channel.endpoint;
  }

  async range(request: messages.RangeRequest, options?: CallOptions): Promise<messages.RangeResponse> {
    return messages.decodeRangeResponse(await this.call(Methods.range, messages.encodeRangeRequest(request), options));
  }

  async put(request: messages.PutRequest, options?: CallOptions): Promise<messages.PutResponse> {
    return messages.decodePutResponse(await this.call(Methods.put, messages.encodePutRequest(request), options));
  }

  async deleteRange(
    request: messages.DeleteRangeRequest,
    options?: CallOptions,
  ): Promise<messages.DeleteRangeResponse> {
    return messages.decodeDeleteRangeResponse(
      await this.call(Methods.deleteRange, messages.encodeDeleteRangeRequest(request), options),
    );
  }

  async txn(request: messages.TxnRequest, options?: CallOptions): Promise<messages.TxnResponse> {
    return messages.decodeTxnResponse(await this.call(Methods.txn, messages.encodeTxnRequest(request), options));
  }

  /** Compacts history below `revision`; etcd refuses one at or below the compacted revision. */
  async compact(request: messages.CompactionRequest, options?: CallOptions): Promise<void> {
    await this.call(Methods.compact, messages.encodeCompactionRequest(request), options);
  }

  /** The current member's status: its version, its leader, its alarms. */
  async status(options?: CallOptions): Promise<messages.StatusResponse> {
    return messages.decodeStatusResponse(await this.call(Methods.status, Buffer.alloc(0), options));
  }

  /** A lease of `ttlSeconds`; keys put with it are deleted when it expires or is revoked. */
  async leaseGrant(ttlSeconds: number, options?: CallOptions): Promise<messages.LeaseGrantResponse> {
    const response = messages.decodeLeaseGrantResponse(
      await this.call(Methods.leaseGrant, messages.encodeLeaseGrantRequest({ ttlSeconds }), options),
    );
    if (response.error) throw new Error(`etcd refused a lease of ${ttlSeconds} s: ${response.error}`);
    return response;
  }

  /** Revokes a lease, deleting its keys. */
  async leaseRevoke(id: bigint, options?: CallOptions): Promise<void> {
    await this.call(Methods.leaseRevoke, messages.encodeLeaseIdRequest({ id }), options);
  }

  /**
   * Renews a lease once, on etcd's bidirectional keep-alive stream; resolves with the TTL it
   * now has (0 when it no longer exists).
   */
  async leaseKeepAliveOnce(id: bigint, options?: CallOptions): Promise<number> {
    const stream = await LeaseKeepAliveStream.open((handlers) => this.channel.duplex(Methods.leaseKeepAlive, handlers));
    try {
      return await stream.renew(id, options?.timeoutMs ?? this.timeoutMs);
    } finally {
      stream.close();
    }
  }

  /** Opens a watch stream on the current member; create watches on it with `stream.create`. */
  watch(handlers: WatchStreamHandlers): Promise<WatchStream> {
    return WatchStream.open((streamHandlers) => this.channel.duplex(Methods.watch, streamHandlers), handlers);
  }

  close(): void {
    this.channel.close();
  }

  private call(method: string, request: Buffer, options: CallOptions | undefined): Promise<Buffer> {
    return this.channel.unary(method, request, options?.timeoutMs ?? this.timeoutMs);
  }
}
