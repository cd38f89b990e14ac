/**
 * One decode for each write of this replica, shared by the write's answer and the watch cache's
 * event of it.
 *
 * A create or update answers with the object decoded from the bytes it stored, and the event the
 * store's watch brings to the watch cache carries the same bytes at the same revision (a key's
 * modRevision names one write). Which of the two has them first depends on the store and the
 * load: SQLite hands a write's event to the feed before the write resolves; through etcd the
 * Txn's answer and the watch event come in the same reads, the answer first when writes come one
 * at a time, the event first under load (five writes in six at 32 in flight). Whichever has them
 * first decodes and keeps the object here; the other takes it. Decoding twice was about a
 * twentieth of a create's CPU through etcd, and twice the garbage.
 *
 * The object is then shared by the cache and the write's answer, as every object a cache read
 * answers is shared: neither may change it.
 *
 * What is kept is bounded: an event's object only while a write of its key is in flight here
 * (others have no answer to share with), a write's object until its event comes, a list
 * passes its revision, or the cache stops, and at most `capacity` of those.
 */
import type { KubeObject } from '../../api/objects';
import type { KeyValue } from '../store';

type Stored = Pick<KeyValue, 'key' | 'modRevision'>;

interface Kept {
  readonly revision: number;
  readonly object: KubeObject;
}

/** Writes whose events are later than this many others are left to decode their event again. */
const DEFAULT_CAPACITY = 4_096;

export class WriteDecodes {
  /** Writes in flight by store key (a key may have several: a create racing an update). */
  private readonly inFlight = new Map<string, number>();
  /** Objects the cache decoded from events of keys with a write in flight, for the write to take. */
  private readonly fromEvents = new Map<string, Kept>();
  /** Objects writes decoded before their events came, for the cache to take. */
  private readonly fromWrites = new Map<string, Kept>();
  /** The revision of the last event the cache took in: a write at or before it has had its event. */
  private applied = 0;
  /** Set once the cache stopped: no event will take what a write keeps. */
  private closed = false;

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** Runs `write` (a store write of `key` and the decode of its answer) as a write in flight. */
  async writing<T>(key: string, write: () => Promise<T>): Promise<T> {
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    try {
      return await write();
    } finally {
      const left = (this.inFlight.get(key) as number) - 1;
      if (left === 0) {
        this.inFlight.delete(key);
        this.fromEvents.delete(key);
      } else this.inFlight.set(key, left);
    }
  }

  /** The object a write stored as `kv`: the event's, when the cache decoded it first. */
  forWrite(kv: Stored, decode: () => KubeObject): KubeObject {
    const kept = this.fromEvents.get(kv.key);
    if (kept !== undefined && kept.revision === kv.modRevision) {
      this.fromEvents.delete(kv.key);
      return kept.object;
    }
    const object = decode();
    if (!this.closed && kv.modRevision > this.applied && this.fromWrites.size < this.capacity) {
      this.fromWrites.set(kv.key, { revision: kv.modRevision, object });
    }
    return object;
  }

  /**
   * The object of the put event `kv`, which the cache takes in now, in revision order: the
   * write's, when the write decoded it first.
   */
  forEvent(kv: Stored, decode: () => KubeObject): KubeObject {
    this.applied = kv.modRevision;
    const kept = this.fromWrites.get(kv.key);
    if (kept !== undefined && kept.revision <= kv.modRevision) {
      this.fromWrites.delete(kv.key);
      if (kept.revision === kv.modRevision) return kept.object;
    }
    const object = decode();
    if (this.inFlight.has(kv.key)) this.fromEvents.set(kv.key, { revision: kv.modRevision, object });
    return object;
  }

  /** A delete event of `kv.key`: what a write kept for it before then will not be asked for. */
  forDeleteEvent(kv: Stored): void {
    this.applied = kv.modRevision;
    const kept = this.fromWrites.get(kv.key);
    if (kept !== undefined && kept.revision <= kv.modRevision) this.fromWrites.delete(kv.key);
  }

  /** The cache listed at `revision`: the events of writes up to it will not come. */
  listedAt(revision: number): void {
    this.applied = Math.max(this.applied, revision);
    for (const [key, kept] of this.fromWrites) if (kept.revision <= revision) this.fromWrites.delete(key);
  }

  /** The cache stopped: nothing kept will be taken, and writes keep nothing from now on. */
  close(): void {
    this.closed = true;
    this.fromWrites.clear();
    this.fromEvents.clear();
  }
}
