/**
 * etcd's v3 gRPC messages that capstan sends and receives (etcdserverpb and mvccpb, field numbers
 * from etcd's rpc.proto and kv.proto), with their codecs. Only the fields capstan uses are
 * written; unknown fields are skipped when read, so newer etcd versions still decode.
 */
import { ProtoReader, ProtoWriter } from './protobuf';

// ---------------------------------------------------------------- shared

export interface ResponseHeader {
  /** The store revision when the request was applied. */
  readonly revision: number;
}

export interface KeyValue {
  readonly key: Buffer;
  readonly value: Buffer;
  readonly createRevision: number;
  readonly modRevision: number;
  readonly version: number;
  /** The lease the key is attached to; 0n for none. */
  readonly lease: bigint;
}

const NO_HEADER: ResponseHeader = { revision: 0 };
const EMPTY: Buffer = Buffer.alloc(0);

function decodeHeader(reader: ProtoReader): ResponseHeader {
  let revision = 0;
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 3) revision = reader.varint();
    else reader.skip();
  }
  return { revision };
}

function decodeKeyValue(reader: ProtoReader): KeyValue {
  let key = EMPTY;
  let value = EMPTY;
  let createRevision = 0;
  let modRevision = 0;
  let version = 0;
  let lease = 0n;
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    switch (field) {
      case 1:
        key = reader.bytes();
        break;
      case 2:
        createRevision = reader.varint();
        break;
      case 3:
        modRevision = reader.varint();
        break;
      case 4:
        version = reader.varint();
        break;
      case 5:
        value = reader.bytes();
        break;
      case 6:
        lease = reader.bigVarint();
        break;
      default:
        reader.skip();
    }
  }
  return { key, value, createRevision, modRevision, version, lease };
}

// ---------------------------------------------------------------- KV

export interface RangeRequest {
  readonly key: Buffer;
  /** Exclusive end; "\0" means every key from `key` on; absent means `key` alone. */
  readonly rangeEnd?: Buffer;
  readonly limit?: number;
  /** 0 or absent: the current revision. */
  readonly revision?: number;
  readonly countOnly?: boolean;
  readonly keysOnly?: boolean;
}

export interface RangeResponse {
  readonly header: ResponseHeader;
  readonly kvs: KeyValue[];
  readonly more: boolean;
  /** Keys in the range, returned or not. */
  readonly count: number;
}

function writeRangeRequest(request: RangeRequest): ProtoWriter {
  return new ProtoWriter(request.key.length + (request.rangeEnd?.length ?? 0) + 24)
    .bytes(1, request.key, true)
    .bytes(2, request.rangeEnd)
    .varint(3, request.limit ?? 0)
    .varint(4, request.revision ?? 0)
    .bool(8, request.keysOnly)
    .bool(9, request.countOnly);
}

export function encodeRangeRequest(request: RangeRequest): Buffer {
  return writeRangeRequest(request).finish();
}

function readRangeResponse(reader: ProtoReader): RangeResponse {
  let header = NO_HEADER;
  const kvs: KeyValue[] = [];
  let more = false;
  let count = 0;
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) header = decodeHeader(reader.message());
    else if (field === 2) kvs.push(decodeKeyValue(reader.message()));
    else if (field === 3) more = reader.bool();
    else if (field === 4) count = reader.varint();
    else reader.skip();
  }
  return { header, kvs, more, count };
}

export function decodeRangeResponse(bytes: Buffer): RangeResponse {
  return readRangeResponse(new ProtoReader(bytes));
}

export interface PutRequest {
  readonly key: Buffer;
  readonly value: Buffer;
  /** Attach the key to this lease (0n or absent: none). */
  readonly lease?: bigint;
  readonly prevKv?: boolean;
}

export interface PutResponse {
  readonly header: ResponseHeader;
  readonly prevKv?: KeyValue;
}

function writePutRequest(request: PutRequest): ProtoWriter {
  return new ProtoWriter(request.key.length + request.value.length + 24)
    .bytes(1, request.key, true)
    .bytes(2, request.value)
    .bigVarint(3, request.lease ?? 0n)
    .bool(4, request.prevKv);
}

export function encodePutRequest(request: PutRequest): Buffer {
  return writePutRequest(request).finish();
}

function readPutResponse(reader: ProtoReader): PutResponse {
  let header = NO_HEADER;
  let prevKv: KeyValue | undefined;
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) header = decodeHeader(reader.message());
    else if (field === 2) prevKv = decodeKeyValue(reader.message());
    else reader.skip();
  }
  return prevKv ? { header, prevKv } : { header };
}

export function decodePutResponse(bytes: Buffer): PutResponse {
  return readPutResponse(new ProtoReader(bytes));
}

export interface DeleteRangeRequest {
  readonly key: Buffer;
  readonly rangeEnd?: Buffer;
  readonly prevKv?: boolean;
}

export interface DeleteRangeResponse {
  readonly header: ResponseHeader;
  readonly deleted: number;
  readonly prevKvs: KeyValue[];
}

function writeDeleteRangeRequest(request: DeleteRangeRequest): ProtoWriter {
  return new ProtoWriter(request.key.length + (request.rangeEnd?.length ?? 0) + 12)
    .bytes(1, request.key, true)
    .bytes(2, request.rangeEnd)
    .bool(3, request.prevKv);
}

export function encodeDeleteRangeRequest(request: DeleteRangeRequest): Buffer {
  return writeDeleteRangeRequest(request).finish();
}

function readDeleteRangeResponse(reader: ProtoReader): DeleteRangeResponse {
  let header = NO_HEADER;
  let deleted = 0;
  const prevKvs: KeyValue[] = [];
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) header = decodeHeader(reader.message());
    else if (field === 2) deleted = reader.varint();
    else if (field === 3) prevKvs.push(decodeKeyValue(reader.message()));
    else reader.skip();
  }
  return { header, deleted, prevKvs };
}

export function decodeDeleteRangeResponse(bytes: Buffer): DeleteRangeResponse {
  return readDeleteRangeResponse(new ProtoReader(bytes));
}

/** A transaction guard on one key: `target` of the key compared with `value`. */
export interface Compare {
  readonly key: Buffer;
  /** The key's mod revision, create revision or version (0 for each when the key is absent). */
  readonly target: 'mod' | 'create' | 'version';
  readonly result: 'equal' | 'greater' | 'less' | 'notEqual';
  readonly value: number;
}

const COMPARE_RESULTS = { equal: 0, greater: 1, less: 2, notEqual: 3 } as const;
/** Target enum value and the field of the compared value in the target_union oneof. */
const COMPARE_TARGETS = { version: [0, 4], create: [1, 5], mod: [2, 6] } as const;

function writeCompare(compare: Compare): ProtoWriter {
  const [target, valueField] = COMPARE_TARGETS[compare.target];
  return new ProtoWriter(compare.key.length + 24)
    .varint(1, COMPARE_RESULTS[compare.result])
    .varint(2, target)
    .bytes(3, compare.key, true)
    .varint(valueField, compare.value, true);
}

export type RequestOp =
  { readonly range: RangeRequest } | { readonly put: PutRequest } | { readonly deleteRange: DeleteRangeRequest };

export type ResponseOp =
  { readonly range: RangeResponse } | { readonly put: PutResponse } | { readonly deleteRange: DeleteRangeResponse };

function writeRequestOp(op: RequestOp): ProtoWriter {
  const writer = new ProtoWriter();
  if ('range' in op) return writer.message(1, writeRangeRequest(op.range));
  if ('put' in op) return writer.message(2, writePutRequest(op.put));
  return writer.message(3, writeDeleteRangeRequest(op.deleteRange));
}

function readResponseOp(reader: ProtoReader): ResponseOp {
  let op: ResponseOp | undefined;
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) op = { range: readRangeResponse(reader.message()) };
    else if (field === 2) op = { put: readPutResponse(reader.message()) };
    else if (field === 3) op = { deleteRange: readDeleteRangeResponse(reader.message()) };
    else reader.skip();
  }
  if (!op) throw new Error('etcd: a transaction response operation of a kind this client never asks for');
  return op;
}

export interface TxnRequest {
  readonly compare: readonly Compare[];
  readonly success: readonly RequestOp[];
  readonly failure: readonly RequestOp[];
}

export interface TxnResponse {
  readonly header: ResponseHeader;
  readonly succeeded: boolean;
  readonly responses: ResponseOp[];
}

export function encodeTxnRequest(request: TxnRequest): Buffer {
  const writer = new ProtoWriter(256);
  for (const compare of request.compare) writer.message(1, writeCompare(compare));
  for (const op of request.success) writer.message(2, writeRequestOp(op));
  for (const op of request.failure) writer.message(3, writeRequestOp(op));
  return writer.finish();
}

export function decodeTxnResponse(bytes: Buffer): TxnResponse {
  const reader = new ProtoReader(bytes);
  let header = NO_HEADER;
  let succeeded = false;
  const responses: ResponseOp[] = [];
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) header = decodeHeader(reader.message());
    else if (field === 2) succeeded = reader.bool();
    else if (field === 3) responses.push(readResponseOp(reader.message()));
    else reader.skip();
  }
  return { header, succeeded, responses };
}

export interface CompactionRequest {
  readonly revision: number;
  /** Wait until the compaction is applied to the backend database. */
  readonly physical?: boolean;
}

export function encodeCompactionRequest(request: CompactionRequest): Buffer {
  return new ProtoWriter(16).varint(1, request.revision).bool(2, request.physical).finish();
}

/** Responses that carry nothing but the header: Compaction, LeaseRevoke. */
export function decodeHeaderOnlyResponse(bytes: Buffer): { readonly header: ResponseHeader } {
  const reader = new ProtoReader(bytes);
  let header = NO_HEADER;
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) header = decodeHeader(reader.message());
    else reader.skip();
  }
  return { header };
}

// ---------------------------------------------------------------- Watch

export interface WatchCreateRequest {
  readonly key: Buffer;
  readonly rangeEnd?: Buffer;
  /** 0 or absent: from the next revision. */
  readonly startRevision?: number;
  /** Ask for progress notifications (empty responses carrying the revision) while idle. */
  readonly progressNotify?: boolean;
  readonly prevKv?: boolean;
}

/** A WatchRequest creating one watch (a stream's watches end with the stream). */
export function encodeWatchCreateRequest(create: WatchCreateRequest): Buffer {
  return new ProtoWriter(create.key.length + (create.rangeEnd?.length ?? 0) + 32)
    .message(
      1,
      new ProtoWriter(create.key.length + (create.rangeEnd?.length ?? 0) + 24)
        .bytes(1, create.key, true)
        .bytes(2, create.rangeEnd)
        .varint(3, create.startRevision ?? 0)
        .bool(4, create.progressNotify)
        .bool(6, create.prevKv),
    )
    .finish();
}

export interface WatchEvent {
  readonly type: 'put' | 'delete';
  /** For a delete: the key, an empty value, and the deletion's revision as `modRevision`. */
  readonly kv: KeyValue;
  /** The previous value, when the watch asked for it and there was one. */
  readonly prevKv?: KeyValue;
}

export interface WatchResponse {
  readonly header: ResponseHeader;
  readonly watchId: number;
  readonly created: boolean;
  readonly canceled: boolean;
  /** Set when the start revision was compacted: the compacted revision (the watch is canceled). */
  readonly compactRevision: number;
  readonly cancelReason: string;
  readonly events: WatchEvent[];
}

const NO_KEY_VALUE: KeyValue = { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0, version: 0, lease: 0n };

function decodeEvent(reader: ProtoReader): WatchEvent {
  let type: 'put' | 'delete' = 'put';
  let kv = NO_KEY_VALUE;
  let prevKv: KeyValue | undefined;
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) type = reader.varint() === 1 ? 'delete' : 'put';
    else if (field === 2) kv = decodeKeyValue(reader.message());
    else if (field === 3) prevKv = decodeKeyValue(reader.message());
    else reader.skip();
  }
  return prevKv ? { type, kv, prevKv } : { type, kv };
}

export function decodeWatchResponse(bytes: Buffer): WatchResponse {
  const reader = new ProtoReader(bytes);
  let header = NO_HEADER;
  let watchId = 0;
  let created = false;
  let canceled = false;
  let compactRevision = 0;
  let cancelReason = '';
  const events: WatchEvent[] = [];
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    switch (field) {
      case 1:
        header = decodeHeader(reader.message());
        break;
      case 2:
        watchId = reader.varint();
        break;
      case 3:
        created = reader.bool();
        break;
      case 4:
        canceled = reader.bool();
        break;
      case 5:
        compactRevision = reader.varint();
        break;
      case 6:
        cancelReason = reader.string();
        break;
      case 11:
        events.push(decodeEvent(reader.message()));
        break;
      default:
        reader.skip();
    }
  }
  return { header, watchId, created, canceled, compactRevision, cancelReason, events };
}

// ---------------------------------------------------------------- Lease

export interface LeaseGrantResponse {
  readonly header: ResponseHeader;
  readonly id: bigint;
  /** Seconds, as granted (etcd may raise a TTL below its minimum). */
  readonly ttl: number;
  readonly error: string;
}

export function encodeLeaseGrantRequest(request: { readonly ttlSeconds: number }): Buffer {
  return new ProtoWriter(16).varint(1, request.ttlSeconds).finish();
}

export function decodeLeaseGrantResponse(bytes: Buffer): LeaseGrantResponse {
  const reader = new ProtoReader(bytes);
  let header = NO_HEADER;
  let id = 0n;
  let ttl = 0;
  let error = '';
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) header = decodeHeader(reader.message());
    else if (field === 2) id = reader.bigVarint();
    else if (field === 3) ttl = reader.varint();
    else if (field === 4) error = reader.string();
    else reader.skip();
  }
  return { header, id, ttl, error };
}

/** LeaseRevokeRequest and LeaseKeepAliveRequest: the lease ID alone. */
export function encodeLeaseIdRequest(request: { readonly id: bigint }): Buffer {
  return new ProtoWriter(16).bigVarint(1, request.id).finish();
}

export interface LeaseKeepAliveResponse {
  readonly header: ResponseHeader;
  readonly id: bigint;
  /** Seconds left after the renewal; 0 or less when the lease no longer exists. */
  readonly ttl: number;
}

export function decodeLeaseKeepAliveResponse(bytes: Buffer): LeaseKeepAliveResponse {
  const reader = new ProtoReader(bytes);
  let header = NO_HEADER;
  let id = 0n;
  let ttl = 0;
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) header = decodeHeader(reader.message());
    else if (field === 2) id = reader.bigVarint();
    else if (field === 3) ttl = reader.varint();
    else reader.skip();
  }
  return { header, id, ttl };
}

// ---------------------------------------------------------------- Maintenance

export interface StatusResponse {
  readonly header: ResponseHeader;
  /** etcd's version, e.g. "3.4.23". */
  readonly version: string;
  readonly dbSize: number;
  /** The leader's member ID; 0n when the member knows of none. */
  readonly leader: bigint;
  /** Alarms and other errors the member reports (etcd 3.4+). */
  readonly errors: string[];
}

export function decodeStatusResponse(bytes: Buffer): StatusResponse {
  const reader = new ProtoReader(bytes);
  let header = NO_HEADER;
  let version = '';
  let dbSize = 0;
  let leader = 0n;
  const errors: string[] = [];
  for (let field = reader.next(); field !== 0; field = reader.next()) {
    if (field === 1) header = decodeHeader(reader.message());
    else if (field === 2) version = reader.string();
    else if (field === 3) dbSize = reader.varint();
    else if (field === 4) leader = BigInt.asUintN(64, reader.bigVarint());
    else if (field === 8) errors.push(reader.string());
    else reader.skip();
  }
  return { header, version, dbSize, leader, errors };
}
