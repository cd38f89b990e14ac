/**
 * The node port bitmap every replica shares, kept where and as the reference keeps it: one
 * RangeAllocation (core/v1) at `<prefix>/ranges/servicenodeports`, its `range` the flag's
 * `a-b` and its `data` the bytes of a big integer whose bit i says whether port base+i is
 * taken (Go's big.Int.Bytes: big-endian, no leading zero bytes). A reference kube-apiserver on
 * the same etcd reads and writes the same key, so both hand out ports from one bitmap.
 *
 * Every change is a compare-and-swap on the key's mod revision, retried on fresh state when
 * another replica wrote first: two replicas never both take one port. Nothing is cached; each
 * change reads the key.
 */
import { Reader, Writer } from 'protobufjs/minimal';
import type { RevisionedStore } from '../../../storage/store';
import { parsePortRange, type PortRange } from '../../config/port-range';

/** The reference's fixed text when a port is outside the range (its ErrNotInRange). */
export function notInRangeMessage(range: PortRange): string {
  return `provided port is not in the valid range. The range of valid ports is ${range}`;
}
export const ALREADY_ALLOCATED = 'provided port is already allocated';
export const RANGE_FULL = 'range is full';

/** Ports in a range, as bits; bit i is port base+i. */
export class PortBitmap {
  private readonly bits: Uint8Array;
  /** Dynamic picks draw from the ports above this offset first (the reference's static band). */
  private readonly offset: number;

  constructor(
    readonly range: PortRange,
    private readonly random: (n: number) => number,
    data: Uint8Array = new Uint8Array(0),
  ) {
    this.bits = new Uint8Array(Math.ceil(range.size / 8));
    // data is big-endian: its last byte holds bits 0-7.
    for (let i = 0; i < data.length && i < this.bits.length; i++) this.bits[i] = data[data.length - 1 - i];
    this.offset = staticBandSize(range.size);
  }

  has(port: number): boolean {
    const bit = port - this.range.base;
    return (this.bits[bit >> 3] & (1 << (bit & 7))) !== 0;
  }

  private set(port: number, taken: boolean): void {
    const bit = port - this.range.base;
    if (taken) this.bits[bit >> 3] |= 1 << (bit & 7);
    else this.bits[bit >> 3] &= ~(1 << (bit & 7));
  }

  /** Takes `port`; the reference's error text when it cannot. */
  allocate(port: number): string | undefined {
    if (!this.range.contains(port)) return notInRangeMessage(this.range);
    if (this.has(port)) return ALREADY_ALLOCATED;
    this.set(port, true);
    return undefined;
  }

  /**
   * Takes a free port at random, from above the static band first (where clients ask for
   * ports by number), as the reference's random scan with offset; undefined when all are taken.
   */
  allocateNext(): number | undefined {
    const scan = (from: number, count: number): number | undefined => {
      if (count <= 0) return undefined;
      const start = this.random(count);
      for (let i = 0; i < count; i++) {
        const port = this.range.base + from + ((start + i) % count);
        if (!this.has(port)) return port;
      }
      return undefined;
    };
    const port = scan(this.offset, this.range.size - this.offset) ?? scan(0, this.offset);
    if (port !== undefined) this.set(port, true);
    return port;
  }

  release(port: number): void {
    if (this.range.contains(port)) this.set(port, false);
  }

  /** The ports taken, in order. */
  taken(): number[] {
    const ports: number[] = [];
    for (let port = this.range.base; port <= this.range.last; port++) if (this.has(port)) ports.push(port);
    return ports;
  }

  /** big.Int.Bytes of the bitmap: big-endian, leading zero bytes dropped. */
  data(): Buffer {
    let length = this.bits.length;
    while (length > 0 && this.bits[length - 1] === 0) length--;
    const out = Buffer.alloc(length);
    for (let i = 0; i < length; i++) out[length - 1 - i] = this.bits[i];
    return out;
  }
}

/**
 * What a dry run hands out, as the reference's dry-run port operation: a port asked for is
 * refused only when held (by the bitmap or by this operation; the range is not checked), and a
 * pick is a made-up port after the highest one taken so far (after 32768 at first) that the
 * bitmap does not hold; nothing is written.
 */
export class DryRunPortBitmap extends PortBitmap {
  private readonly given: number[] = [];

  override allocate(port: number): string | undefined {
    if ((this.range.contains(port) && this.has(port)) || this.given.includes(port)) return ALREADY_ALLOCATED;
    this.given.push(port);
    return undefined;
  }

  override allocateNext(): number {
    let port = this.given.length > 0 ? Math.max(...this.given) : DRY_RUN_FIRST_PORT;
    do port++;
    while (this.range.contains(port) && this.has(port));
    this.given.push(port);
    return port;
  }
}

/** Where the reference's dry run starts its made-up ports. */
const DRY_RUN_FIRST_PORT = 32768;

/** The reference's min(max(16, size/32), 128), none for ranges of 16 ports or fewer. */
function staticBandSize(size: number): number {
  if (size <= 16) return 0;
  return Math.min(Math.max(16, Math.floor(size / 32)), 128);
}

/** The stored RangeAllocation's fields. */
export interface RangeAllocation {
  readonly range: string;
  readonly data: Uint8Array;
}

const MAGIC = Buffer.from('k8s\0', 'latin1');
/** A zero ObjectMeta as Go's protobuf writes it (every non-pointer field present and empty), so the bytes match the reference's. */
const EMPTY_OBJECT_META = Buffer.from('0a0012001a0022002a00320038004200', 'hex');

/** The reference's stored form: the `k8s\0` envelope around a v1 RangeAllocation. */
export function encodeRangeAllocation(allocation: RangeAllocation): Buffer {
  const raw = Writer.create();
  raw.uint32((1 << 3) | 2).bytes(EMPTY_OBJECT_META);
  raw.uint32((2 << 3) | 2).string(allocation.range);
  raw.uint32((3 << 3) | 2).bytes(allocation.data);
  const envelope = Writer.create();
  envelope.uint32((1 << 3) | 2).fork();
  envelope.uint32((1 << 3) | 2).string('v1');
  envelope.uint32((2 << 3) | 2).string('RangeAllocation');
  envelope.ldelim();
  envelope.uint32((2 << 3) | 2).bytes(raw.finish());
  envelope.uint32((3 << 3) | 2).string('');
  envelope.uint32((4 << 3) | 2).string('');
  return Buffer.concat([MAGIC, envelope.finish()]);
}

/**
 * A stored RangeAllocation: protobuf as the reference writes it, or JSON (a reference server
 * started with `--storage-media-type=application/json`, whose `data` is base64).
 */
export function decodeRangeAllocation(value: Buffer): RangeAllocation {
  if (value.subarray(0, 4).equals(MAGIC)) {
    let raw: Uint8Array = new Uint8Array(0);
    const envelope = Reader.create(value.subarray(4));
    while (envelope.pos < envelope.len) {
      const key = envelope.uint32();
      if (key >>> 3 === 2) raw = envelope.bytes();
      else envelope.skipType(key & 7);
    }
    let range = '';
    let data: Uint8Array = new Uint8Array(0);
    const message = Reader.create(raw);
    while (message.pos < message.len) {
      const key = message.uint32();
      if (key >>> 3 === 2) range = message.string();
      else if (key >>> 3 === 3) data = message.bytes();
      else message.skipType(key & 7);
    }
    return { range, data };
  }
  const parsed = JSON.parse(value.toString('utf8')) as { range?: string; data?: string };
  return { range: parsed.range ?? '', data: Buffer.from(parsed.data ?? '', 'base64') };
}

/** A change lost this many races in a row: the store is far too busy, give up rather than spin. */
const MAX_ATTEMPTS = 100;

export interface SharedPortBitmapOptions {
  readonly store: RevisionedStore;
  /** `<etcd prefix>/ranges/servicenodeports`. */
  readonly key: string;
  readonly range: PortRange;
  /** A random integer in [0, n); injectable so tests can force collisions. */
  readonly random?: (n: number) => number;
}

/** The stored bitmap as read. */
export interface StoredBitmap {
  /** In the stored range, which is this server's unless another range was configured before (or elsewhere). */
  readonly bitmap: PortBitmap;
  /** The key's mod revision; 0 when it is missing. */
  readonly modRevision: number;
}

export class SharedPortBitmap {
  readonly range: PortRange;
  private readonly store: RevisionedStore;
  private readonly key: string;
  private readonly random: (n: number) => number;

  constructor(options: SharedPortBitmapOptions) {
    this.store = options.store;
    this.key = options.key;
    this.range = options.range;
    this.random = options.random ?? ((n) => Math.floor(Math.random() * n));
  }

  /** An empty bitmap of this server's range. */
  empty(): PortBitmap {
    return new PortBitmap(this.range, this.random);
  }

  async read(): Promise<StoredBitmap> {
    const { kv } = await this.store.get(this.key);
    if (kv === undefined) return { bitmap: this.empty(), modRevision: 0 };
    const stored = decodeRangeAllocation(kv.value);
    const range = stored.range === this.range.toString() ? this.range : parsePortRange(stored.range);
    return { bitmap: new PortBitmap(range, this.random, stored.data), modRevision: kv.modRevision };
  }

  /** The stored bitmap for a dry run: `change` sees what it holds, and nothing is written. */
  async dryRun<T>(change: (bitmap: PortBitmap) => T): Promise<T> {
    const { bitmap } = await this.read();
    return change(
      new DryRunPortBitmap(
        this.range,
        this.random,
        bitmap.range.toString() === this.range.toString() ? bitmap.data() : undefined,
      ),
    );
  }

  /** Writes `bitmap` if the key is still at `modRevision` (0: absent); false when another wrote first. */
  async write(bitmap: PortBitmap, modRevision: number): Promise<boolean> {
    const value = encodeRangeAllocation({ range: this.range.toString(), data: bitmap.data() });
    const result =
      modRevision === 0
        ? await this.store.create(this.key, value)
        : await this.store.update(this.key, value, modRevision);
    return result.succeeded;
  }

  /**
   * Runs `change` on the current bitmap and stores the result, starting over on fresh state when
   * another replica wrote in between (so `change` must only depend on the bitmap it is given).
   * A change that throws writes nothing. Until the repair has written the bitmap (or while it
   * holds another range) nothing is handed out, as the reference refuses then.
   */
  async change<T>(change: (bitmap: PortBitmap) => T): Promise<T> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { bitmap, modRevision } = await this.read();
      if (modRevision === 0 || bitmap.range.toString() !== this.range.toString())
        throw new Error('cannot allocate resources of type servicenodeportallocations at this time');
      const result = change(bitmap);
      if (await this.write(bitmap, modRevision)) return result;
    }
    throw new Error(`the node port bitmap changed under ${MAX_ATTEMPTS} attempts in a row`);
  }
}
