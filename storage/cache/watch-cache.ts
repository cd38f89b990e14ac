/**
 * The watch cache of one resource type on one replica: the objects in key order and a ring of
 * their recent events, kept current by the replica's StoreFeed. It implements the object layer
 * (ObjectStorage): reads and watches are served from memory where the resource-version rules
 * allow, everything else (writes, consistent gets, reads outside the cache's window) goes to the
 * ResourceStore it wraps, so callers cannot tell the two apart except by speed.
 *
 * Where each read is served (the spec's resource-version table):
 *   get     ""  → cache once it has reached the store's current revision (≤ consistentReadWaitMs,
 *                 else store), the revision check shared by the reads of a burst; a key the
 *                 cache lacks is read from the store (it answers NotFound, or why it cannot
 *                 read the object)
 *           "0" → cache;  N → cache once it has reached N (≤ tooLargeWaitMs, else 504)
 *   list    ""  → cache once it has reached the store's current revision (≤ consistentReadWaitMs,
 *                 else store); "0" → cache, whole list (limit ignored)
 *           N NotOlderThan → cache once it has reached N; Exact N / N with limit / continue →
 *           the cache's state at N while its ring covers N, else store (which answers 410 once
 *           compacted, and 504 at once for a revision in its future)
 *   watch   N → ring events after N; older than the ring → store (it replays its history),
 *           410 in-band only once compacted (or past `maxHistoryWatches`); "" → consistent
 *           state as ADDED, then live; "0" → state as ADDED, then live; sendInitialEvents adds
 *           the initial-events-end bookmark.
 *
 * A replica that just started or re-listed has a ring that begins at its list; clients moving
 * to it (a rolling restart behind a balancer) resume from older revisions the store still
 * holds, and need not re-list for it.
 *
 * Until its first list is done the cache is not ready: reads go to the store, watches wait up
 * to `readyWaitMs` and then go to the store too (a replica serves rather than refuses; the store
 * can carry the load of one replica's reconnecting watchers for the short time a list takes).
 *
 * The list keeps each object as the store's bytes and decodes it on its first read
 * (listed-object.ts). A read that meets bytes that do not decode is answered by the store, which
 * reports them as it does to every read (a get's 500 naming the key, a list's StorageReadError
 * naming each such key), as it did while such bytes kept the cache from listing at all.
 *
 * Objects are shared between readers and never copied per watcher: they must not be mutated.
 * Keys are ordered by JavaScript string order, which is UTF-8 byte order for every key whose
 * names have no characters beyond U+D7FF (names are DNS labels and subdomains), so pages and
 * continue tokens match the store's.
 */
import { setImmediate } from 'node:timers/promises';
import BTree from 'sorted-btree';
import { bulkLoad } from 'sorted-btree/extended/bulkLoad';
import { ObjectError } from '../errors';
import { decodeObject, isCorruptObjectError, withResourceVersion, type ValueCodec } from '../objects/codec';
import { encodeContinueToken, LATEST_REVISION } from '../objects/continue-token';
import { objectKey, qualifiedResourceName, scopePrefix, type ResourceKeySpace } from '../objects/keys';
import { interpretListOptions, type ListRead } from '../objects/list-request';
import { CONTINUE_EXPIRED_MESSAGE, LIST_EXPIRED_MESSAGE, type ResourceStoreOptions } from '../objects/resource-store';
import { parseResourceVersion, tooLargeResourceVersion } from '../objects/resource-version';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  ObjectKey,
  ObjectStorage,
  ObjectWatch,
  ObjectWatchEvent,
  Predicate,
  Scope,
  UpdateFunction,
  UpdateOptions,
  UpdateResult,
  WatchOptions,
} from '../objects/types';
import { EVERYTHING } from '../objects/types';
import type { WriteDecodes } from '../objects/write-decodes';
import type { KeyValue, RangeResult, StoreEvent } from '../store';
import { bookmarkEvent, CacheWatcher, ErrorWatch, WatchEventsOf } from './cache-watcher';
import type { DispatchBudgetOptions } from './dispatch-budget';
import { type CacheEvent, EventRing, type EventRingOptions } from './event-ring';
import type { FeedListener, StoreFeed } from './feed';
import { HistoryWatches } from './history-watches';
import { type CachedObject, ListedObject, objectOf } from './listed-object';
import { SharedRevisionCheck } from './revision-check';
import { WatcherSet } from './watcher-set';

import { goQuote } from '../../api/go-quote';
import type { KubeObject } from '../../api/objects';
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';
/** sorted-btree's default branching, as in the trees it builds by insertion. */
const TREE_NODE_SIZE = 32;

/** A watch that has ended: no events. */
const ENDED_WATCH: ObjectWatch = {
  done: Promise.resolve(),
  stop() {},
  [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }),
};

export interface WatchCacheTuning {
  readonly ring?: EventRingOptions;
  /** Live events a watcher may have waiting before it counts as blocked (default 100). */
  readonly watcherBufferSize?: number;
  /** Bytes of objects a watcher may have waiting before it counts as blocked (default 16 MiB). */
  readonly watcherBufferBytes?: number;
  readonly bookmarkIntervalMs?: number;
  readonly deadlineBookmarkLeadMs?: number;
  readonly dispatchBudget?: DispatchBudgetOptions;
  /** How long a consistent read waits for the feed to reach the store's revision before going to the store (default 100). */
  readonly consistentReadWaitMs?: number;
  /** How long a write waits for the feed to bring its event to the watchers (default 100). */
  readonly writeEventWaitMs?: number;
  /** How long a read at a future revision waits before 504 (default 3000). */
  readonly tooLargeWaitMs?: number;
  /** How long a watch waits for the first list before going to the store (default 3000). */
  readonly readyWaitMs?: number;
  /** Keys per range while listing the initial state (default 10000). */
  readonly listPageSize?: number;
  /** States at past revisions kept for paged reads (default 4). */
  readonly pastStates?: number;
  /** Watches from before the ring the store serves at once; past it they answer 410 (default 100). */
  readonly maxHistoryWatches?: number;
}

export interface WatchCacheOptions extends ResourceStoreOptions {
  readonly feed: StoreFeed;
  /** The direct object layer: writes, consistent gets, and reads the cache cannot serve. */
  readonly objects: ObjectStorage;
  readonly tuning?: WatchCacheTuning;
}

export interface WatchCacheStats {
  readonly ready: boolean;
  readonly revision: number;
  readonly objects: number;
  readonly ringSize: number;
  readonly ringCapacity: number;
  /** Events after this revision are in the ring. */
  readonly windowStart: number;
  readonly watchers: number;
  readonly terminatedWatchers: number;
  /** Open watches from before the ring, served by the store. */
  readonly historyWatches: number;
}

type ObjectTree = BTree<string, CachedObject>;

/** A state of the cache to read pages from. */
interface StateView {
  readonly tree: ObjectTree;
  readonly revision: number;
}

export class WatchCache implements ObjectStorage, FeedListener {
  readonly prefix: string;
  private readonly feed: StoreFeed;
  private readonly objects: ObjectStorage;
  private readonly writeDecodes: WriteDecodes | undefined;
  private readonly namespaced: boolean;
  private readonly keySpace: ResourceKeySpace;
  private readonly codec: ValueCodec | undefined;
  /** One store revision request for the consistent reads of a burst. */
  private readonly revisionCheck: SharedRevisionCheck;
  private readonly resourceName: string;
  private readonly tuning: Required<Omit<WatchCacheTuning, 'ring' | 'dispatchBudget' | 'maxHistoryWatches'>> &
    Pick<WatchCacheTuning, 'ring'>;
  private readonly watchers: WatcherSet;
  private readonly historyWatches: HistoryWatches;
  private tree: ObjectTree = new BTree(undefined, compareKeys);
  /** Whether the tree may hold objects listed and not read yet (ListedObject): from a list until decodeListed's whole pass. */
  private listedUnread = false;
  /** Counts the changes of the tree (events applied, lists taken), so that a snapshot of it knows whether it is current. */
  private treeChanges = 0;
  /** Every object of the cache in key order as of `changes`: objectsNow's whole-cache answer until the tree changes. */
  private wholeSnapshot: { readonly changes: number; readonly objects: readonly KubeObject[] } | undefined;
  private ring: EventRing;
  private pastStates = new Map<number, ObjectTree>();
  private state: 'listing' | 'ready' | 'stopped' = 'listing';
  /** Events that arrived while listing, applied after it. */
  private pending: StoreEvent[] = [];
  /** Bumped on every re-list, so a list that was overtaken drops its result. */
  private generation = 0;
  private compacted = 0;
  private readyWaiters: (() => void)[] = [];

  constructor(options: WatchCacheOptions) {
    this.feed = options.feed;
    this.objects = options.objects;
    this.writeDecodes = options.writeDecodes;
    this.prefix = `${options.keyPrefix}/`;
    this.namespaced = options.namespaced;
    this.keySpace = { keyPrefix: options.keyPrefix, namespaced: options.namespaced };
    this.codec = options.codec;
    this.resourceName = qualifiedResourceName(options.qualifiedResource);
    const tuning = options.tuning ?? {};
    this.tuning = {
      ring: tuning.ring,
      watcherBufferSize: tuning.watcherBufferSize ?? 100,
      watcherBufferBytes: tuning.watcherBufferBytes ?? 16 * 1024 * 1024,
      bookmarkIntervalMs: tuning.bookmarkIntervalMs ?? 60_000,
      deadlineBookmarkLeadMs: tuning.deadlineBookmarkLeadMs ?? 2_000,
      consistentReadWaitMs: tuning.consistentReadWaitMs ?? 100,
      writeEventWaitMs: tuning.writeEventWaitMs ?? 100,
      tooLargeWaitMs: tuning.tooLargeWaitMs ?? 3_000,
      readyWaitMs: tuning.readyWaitMs ?? 3_000,
      listPageSize: tuning.listPageSize ?? 10_000,
      pastStates: tuning.pastStates ?? 4,
    };
    this.watchers = new WatcherSet({
      bookmarkIntervalMs: this.tuning.bookmarkIntervalMs,
      deadlineBookmarkLeadMs: this.tuning.deadlineBookmarkLeadMs,
      budget: tuning.dispatchBudget,
      currentRevision: () => this.feed.revision,
    });
    this.historyWatches = new HistoryWatches(tuning.maxHistoryWatches ?? 100);
    this.revisionCheck = new SharedRevisionCheck(() => this.feed.store.currentRevision());
    this.ring = new EventRing(tuning.ring ?? {}, 0);
    this.feed.register(this);
    void this.relist();
  }

  get ready(): boolean {
    return this.state === 'ready';
  }

  /** Resolves true once the first list is done, false after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.state === 'ready') return Promise.resolve(true);
    if (this.state === 'stopped') return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(this.state === 'ready');
      };
      const timer = setTimeout(() => {
        this.readyWaiters = this.readyWaiters.filter((other) => other !== waiter);
        resolve(false);
      }, timeoutMs);
      this.readyWaiters.push(waiter);
    });
  }

  stats(): WatchCacheStats {
    return {
      ready: this.ready,
      revision: this.feed.revision,
      objects: this.tree.size,
      ringSize: this.ring.size,
      ringCapacity: this.ring.capacity,
      windowStart: this.ring.windowStart,
      watchers: this.watchers.size,
      terminatedWatchers: this.watchers.terminatedCount,
      historyWatches: this.historyWatches.size,
    };
  }

  /** Closes every watcher and leaves the feed. */
  stop(): void {
    this.state = 'stopped';
    this.generation++;
    this.feed.unregister(this);
    this.writeDecodes?.close();
    this.watchers.closeAll();
    this.historyWatches.stopAll();
    for (const waiter of this.readyWaiters) waiter();
    this.readyWaiters = [];
  }

  // ---- writes: straight to the store; the feed brings their events back ----

  async create(key: ObjectKey, object: KubeObject, options?: CreateOptions): Promise<KubeObject> {
    const created = await this.objects.create(key, object, options);
    await this.untilWatchersHave(created);
    return created;
  }

  async update(key: ObjectKey, update: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult> {
    const result = await this.objects.update(key, update, options);
    await this.untilWatchersHave(result.object);
    return result;
  }

  async delete(key: ObjectKey, options?: DeleteOptions): Promise<KubeObject> {
    const deleted = await this.objects.delete(key, options);
    await this.untilWatchersHave(deleted);
    return deleted;
  }

  /**
   * A write is done once its event reached this cache's watchers (a bounded wait for the feed),
   * so that its answer can follow the event (server/handlers/watch-writer.ts's
   * flushGatheredEventsIfFew). On SQLite the feed has the event before the write returns; on
   * etcd it comes on the watch stream, usually a fraction of a millisecond after the write's
   * own answer from etcd.
   */
  private async untilWatchersHave(written: KubeObject): Promise<void> {
    if (this.watchers.size === 0) return;
    // A dry run or a write that changed nothing has no revision past the feed's.
    const revision = Number(written.metadata.resourceVersion);
    if (!(revision > this.feed.revision)) return;
    await this.feed.waitForRevision(revision, this.tuning.writeEventWaitMs);
  }

  // ---- reads ----

  async get(key: ObjectKey, options: GetOptions = {}): Promise<KubeObject> {
    const resourceVersion = options.resourceVersion ?? '';
    if (!this.ready) return this.objects.get(key, options);
    const storeKey = objectKey(this.keySpace, key);
    const fromStore = () => this.objects.get(key, options);
    if (resourceVersion === '') {
      const fresh = (await this.catchUpWithStore()) && this.ready;
      const cached = fresh ? this.tree.get(storeKey) : undefined;
      return cached === undefined ? fromStore() : this.readOrAskStore(() => objectOf(cached), fromStore);
    }
    const revision = parseResourceVersion(resourceVersion);
    await this.waitForRevision(revision);
    if (!this.ready) return fromStore();
    const cached = this.tree.get(storeKey);
    if (cached === undefined) {
      throw new ObjectError('NotFound', `${this.resourceName} ${goQuote(key.name)} not found`, { name: key.name });
    }
    return this.readOrAskStore(() => objectOf(cached), fromStore);
  }

  async list(scope: Scope, options: ListOptions): Promise<ListResult> {
    const listPrefix = scopePrefix(this.keySpace, scope);
    const read = interpretListOptions(options, listPrefix);
    if (!this.ready) return this.objects.list(scope, options);
    const limit = read.kind === 'any' ? 0 : (options.limit ?? 0);
    let view = await this.viewFor(read, listPrefix);
    if (view === undefined || !this.ready) return this.objects.list(scope, options);
    if (limit === 0 && this.listedUnread) {
      // A page with no limit reads every object under the prefix: those listed and not read yet
      // are decoded first, a slice per turn of the event loop (all at once, the first such list
      // of a large cache stopped the loop for as long: 10,000 pods, hundreds of milliseconds).
      // The current state may move on meanwhile; it is read as it is then, newer and as fresh.
      const current = view.tree === this.tree;
      await this.decodeListed(listPrefix);
      if (!this.ready) return this.objects.list(scope, options);
      if (current) view = this.currentView();
    }
    const readView = view;
    const page = () =>
      readPage(readView, {
        listPrefix,
        startKey: read.kind === 'continue' ? read.startKey : listPrefix,
        limit,
        predicate: options.predicate,
      });
    return this.readOrAskStore(page, () => this.objects.list(scope, options));
  }

  /**
   * What the cache holds now under `scope`, in key order: the items of a list at
   * resourceVersion 0, for readers in this process that take any state the cache has
   * (admission's lookups on every write), read without a list's promises, options and pages.
   * The whole cache's objects are kept until the tree next changes, so looking up a kind that
   * seldom changes (webhook configurations, policy bindings) costs nothing. Meant for small
   * kinds and one namespace's objects: what was listed and not read yet is decoded at once, not
   * in slices as a list decodes it. Undefined when the cache cannot answer: not ready, or an
   * object under `scope` does not decode (the store's list answers that, as it answers a list).
   */
  objectsNow(scope: Scope): readonly KubeObject[] | undefined {
    if (!this.ready) return undefined;
    const whole = !this.namespaced || scope.namespace === undefined;
    if (whole && this.wholeSnapshot?.changes === this.treeChanges) return this.wholeSnapshot.objects;
    const listPrefix = scopePrefix(this.keySpace, scope);
    let objects: readonly KubeObject[];
    try {
      objects = readPage(this.currentView(), {
        listPrefix,
        startKey: listPrefix,
        limit: 0,
        predicate: EVERYTHING,
      }).items;
    } catch (error) {
      if (isCorruptObjectError(error)) return undefined;
      throw error;
    }
    if (whole) this.wholeSnapshot = { changes: this.treeChanges, objects };
    return objects;
  }

  /**
   * The object under `key` as the cache holds it now (a get at resourceVersion 0, for the same
   * readers as objectsNow), or null when it holds none. Undefined when the cache cannot answer:
   * not ready, or the object's bytes do not decode.
   */
  objectNow(key: ObjectKey): KubeObject | null | undefined {
    if (!this.ready) return undefined;
    const cached = this.tree.get(objectKey(this.keySpace, key));
    if (cached === undefined) return null;
    try {
      return objectOf(cached);
    } catch (error) {
      if (isCorruptObjectError(error)) return undefined;
      throw error;
    }
  }

  async watch(scope: Scope, options: WatchOptions): Promise<ObjectWatch> {
    const listPrefix = scopePrefix(this.keySpace, scope);
    const resourceVersion = options.resourceVersion ?? '';
    const requested = parseResourceVersion(resourceVersion);
    if (!this.ready && !(await this.whenReady(this.tuning.readyWaitMs))) return this.watchStore(scope, options);
    if (resourceVersion === '') {
      const fresh = await this.catchUpWithStore();
      if (!fresh || !this.ready) return this.watchStore(scope, options);
    } else if (requested > 0 && options.sendInitialEvents === true) {
      // The state sent must be at least as new as asked; the failure is in-band, as for any watch.
      if (!(await this.feed.waitForRevision(requested, this.tuning.tooLargeWaitMs))) {
        return new ErrorWatch(tooLargeResourceVersion({ requested, current: this.feed.revision }));
      }
    }
    const sendsState = options.sendInitialEvents ?? requested === 0;
    // Listed objects not read yet are decoded before the state is taken, a slice per turn of the
    // event loop: all at once, a first state of a large list would stop the loop for as long.
    if (sendsState) await this.decodeListed(listPrefix);
    if (!this.ready) return this.watchStore(scope, options);
    const namespace = this.namespaced ? scope.namespace : undefined;
    const { predicate } = options;
    const current = this.feed.revision;

    let initialEvents: Iterator<ObjectWatchEvent> | undefined;
    let startAfter = current;
    if (sendsState) {
      const endBookmark = options.sendInitialEvents === true && options.allowWatchBookmarks === true;
      const tree = this.tree.clone();
      // The state goes out as the watcher reads it, too late for the store to answer instead.
      // Listed since the slices above only if the cache listed again meanwhile.
      if (!decodesAll(tree, listPrefix)) return this.watchStore(scope, options);
      initialEvents = stateEvents({
        tree,
        listPrefix,
        predicate,
        endBookmark: endBookmark ? current : undefined,
      });
    } else if (requested > 0) {
      if (requested < Math.max(this.ring.windowStart, this.compacted - 1))
        return this.watchHistory({ scope, options, requested });
      startAfter = Math.max(requested, current);
      initialEvents = ringEvents({ events: this.ring.eventsAfter(requested), namespace, predicate });
    }

    const watcher = new CacheWatcher({
      namespace,
      predicate,
      bufferSize: this.tuning.watcherBufferSize,
      bufferBytes: this.tuning.watcherBufferBytes,
      startAfter,
      initialEvents,
      allowBookmarks: options.allowWatchBookmarks === true,
      timeoutMs: options.timeoutSeconds === undefined ? undefined : options.timeoutSeconds * 1000,
      onStop: (stopped) => this.watchers.remove(stopped),
    });
    if (!watcher.closed) this.watchers.add(watcher);
    return watcher;
  }

  /**
   * A watch from before the ring: the store replays the events after `requested` and follows
   * live ones, unless they are compacted away (a watch from N needs N + 1 onwards) or too many
   * such watches are open already; then 410, in-band.
   */
  private async watchHistory(request: {
    scope: Scope;
    options: WatchOptions;
    requested: number;
  }): Promise<ObjectWatch> {
    const { scope, options, requested } = request;
    if (requested >= this.compacted - 1) {
      const watch = await this.historyWatches.start(() => this.objects.watch(scope, options));
      if (watch !== undefined) return watch;
    }
    const oldest = Math.max(this.ring.windowStart, this.compacted - 1);
    return new ErrorWatch(new ObjectError('Expired', `too old resource version: ${requested} (${oldest})`));
  }

  // ---- the feed's side ----

  onEvents(events: readonly StoreEvent[]): void {
    if (this.state === 'listing') {
      this.pending.push(...events);
      return;
    }
    if (this.state !== 'ready') return;
    try {
      this.apply(events);
    } catch {
      // An object the cache cannot decode: serving without it would be wrong, so list again
      // (reads go to the store, which reports the broken object, until the list succeeds).
      this.onReset();
    }
  }

  onCompacted(revision: number): void {
    this.compacted = Math.max(this.compacted, revision);
    this.ring.dropBefore(revision);
    for (const pastRevision of this.pastStates.keys()) {
      if (pastRevision < revision) this.pastStates.delete(pastRevision);
    }
  }

  onReset(): void {
    if (this.state === 'stopped') return;
    this.watchers.closeAll();
    void this.relist();
  }

  // ---- internals ----

  /**
   * The store's watch while the cache cannot serve one; none once the cache is stopped (its
   * resource type was removed while the watch waited): that watch ends at once, as the
   * cache's own watchers did.
   */
  private watchStore(scope: Scope, options: WatchOptions): Promise<ObjectWatch> {
    return this.state === 'stopped' ? Promise.resolve(ENDED_WATCH) : this.objects.watch(scope, options);
  }

  private async relist(): Promise<void> {
    const generation = ++this.generation;
    this.state = 'listing';
    this.pending = [];
    let retryDelayMs = 100;
    await this.feed.whenStarted();
    while (generation === this.generation) {
      // Every event after `revision` reaches `pending` from here on, so the list and the
      // events that follow it meet without a gap.
      const revision = this.feed.revision;
      this.pending = [];
      try {
        const tree = await this.listAt(revision);
        if (generation !== this.generation) return;
        this.tree = tree;
        this.treeChanges++;
        this.writeDecodes?.listedAt(revision);
        // A list that found nothing leaves nothing to decode: unlimited lists under a namespace,
        // which never clear the flag themselves, skip the pass (admission's quota lookup on every
        // namespaced create, where no quota exists).
        this.listedUnread = tree.size > 0;
        this.ring = new EventRing(this.tuning.ring ?? {}, revision);
        this.pastStates.clear();
        this.compacted = Math.max(this.compacted, this.feed.compactedRevision);
        const pending = this.pending.filter((event) => event.kv.modRevision > revision);
        this.pending = [];
        this.apply(pending);
        this.state = 'ready';
        for (const waiter of this.readyWaiters) waiter();
        this.readyWaiters = [];
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
        retryDelayMs = Math.min(retryDelayMs * 2, 5_000);
      }
    }
  }

  private async listAt(revision: number): Promise<ObjectTree> {
    // Before the first write there is nothing to read; and a range "at revision 0" would mean
    // "now" to the store, whose writes the feed then delivers again on top of the list.
    if (revision === 0) return new BTree([], compareKeys);
    const keys: string[] = [];
    const objects: CachedObject[] = [];
    const pageFrom = (startKey: string) =>
      this.feed.store.range({ prefix: this.prefix, startKey, revision, limit: this.tuning.listPageSize });
    let next: Promise<RangeResult> | undefined = pageFrom(this.prefix);
    while (next !== undefined) {
      const page: RangeResult = await next;
      const more = page.remaining > 0 && page.kvs.length > 0;
      // The next page is asked for before this one is taken in: a remote store (etcd) reads and
      // sends it meanwhile, on its own core. Its failure is the await's above, on the next turn.
      next = more ? pageFrom(`${page.kvs[page.kvs.length - 1].key}\u0000`) : undefined;
      next?.catch(() => undefined);
      for (const kv of page.kvs) {
        keys.push(kv.key);
        objects.push(new ListedObject(kv, this.codec));
      }
      // A store that reads in place (SQLite) answers at once: requests (health checks, reads the
      // store answers meanwhile) get their turn between its pages.
      await setImmediate();
    }
    return listedTree(keys, objects);
  }

  private apply(events: readonly StoreEvent[]): void {
    const recordedAt = Date.now();
    this.treeChanges++;
    for (const { type, kv, prevKv } of events) {
      const cachedPrevious = this.tree.get(kv.key);
      // Throws for listed bytes that do not decode: onEvents lists again.
      const previous = cachedPrevious === undefined ? undefined : objectOf(cachedPrevious);
      let object: KubeObject;
      if (type === 'put') {
        object = this.decodePut(kv);
        this.tree.set(kv.key, object);
      } else {
        this.writeDecodes?.forDeleteEvent(kv);
        if (previous === undefined) continue;
        object = withResourceVersion(previous, kv.modRevision);
        this.tree.delete(kv.key);
      }
      const event: CacheEvent = {
        type: type === 'delete' ? 'DELETED' : previous === undefined ? 'ADDED' : 'MODIFIED',
        key: kv.key,
        namespace: object.metadata.namespace ?? '',
        name: object.metadata.name ?? '',
        revision: kv.modRevision,
        object,
        prevObject: previous,
        recordedAt,
        size: type === 'put' ? kv.value.length : (prevKv?.value.length ?? 0),
      };
      this.ring.push(event);
      this.watchers.dispatch(event);
    }
  }

  /** The object of a put event, decoded once with the answer of this replica's write of it (write-decodes.ts). */
  private decodePut(kv: KeyValue): KubeObject {
    if (this.writeDecodes === undefined) return decodeObject(kv, this.codec);
    return this.writeDecodes.forEvent(kv, () => decodeObject(kv, this.codec));
  }

  /** The state a list reads, or undefined when the store must answer. Throws 410/504. */
  private async viewFor(read: ListRead, listPrefix: string): Promise<StateView | undefined> {
    switch (read.kind) {
      case 'any':
        return this.currentView();
      case 'consistent':
        return (await this.catchUpWithStore()) ? this.currentView() : undefined;
      case 'notOlderThan':
        await this.waitForRevision(read.revision);
        return this.currentView();
      case 'exact':
        return this.pastView(read.revision, () => new ObjectError('Expired', LIST_EXPIRED_MESSAGE));
      case 'continue': {
        if (read.revision === LATEST_REVISION) return (await this.catchUpWithStore()) ? this.currentView() : undefined;
        const continueToken = encodeContinueToken({ listPrefix, startKey: read.startKey, revision: LATEST_REVISION });
        return this.pastView(
          read.revision,
          () => new ObjectError('Expired', CONTINUE_EXPIRED_MESSAGE, { continueToken }),
        );
      }
    }
  }

  private currentView(): StateView {
    return { tree: this.tree, revision: this.feed.revision };
  }

  /**
   * The state at `revision` rebuilt from the current one and the ring, or undefined when the
   * ring no longer covers it, or the cache has not reached it: the reference reads an exact
   * revision from etcd, which serves it or refuses one in its future at once (a 504 with no
   * retry), so the store answers rather than the cache waiting for it.
   */
  private async pastView(revision: number, expired: () => ObjectError): Promise<StateView | undefined> {
    if (revision > this.feed.revision) return undefined;
    if (revision < this.compacted) throw expired();
    if (revision === this.feed.revision) return this.currentView();
    if (revision < this.ring.windowStart) return undefined;
    let tree = this.pastStates.get(revision);
    if (!tree) {
      const past = this.tree.clone();
      this.ring.forEachAfterNewestFirst(revision, (event) => {
        if (event.prevObject === undefined) past.delete(event.key);
        else past.set(event.key, event.prevObject);
      });
      tree = past;
      this.pastStates.set(revision, tree);
      if (this.pastStates.size > this.tuning.pastStates) {
        this.pastStates.delete(this.pastStates.keys().next().value as number);
      }
    }
    return { tree, revision };
  }

  /**
   * `read` from the cache, or the store's answer when the read meets listed bytes that do not
   * decode (the store reports them as it does to any read).
   */
  private readOrAskStore<T>(read: () => T, askStore: () => Promise<T>): Promise<T> {
    try {
      return Promise.resolve(read());
    } catch (error) {
      if (isCorruptObjectError(error)) return askStore();
      throw error;
    }
  }

  /**
   * Decodes the objects under `listPrefix` listed and not read yet, a slice per turn of the
   * event loop (decodeListedInSlices). Once a pass over the whole cache finds the tree it began
   * with still current, nothing listed is left unread until the next list, and later calls cost
   * nothing.
   */
  private async decodeListed(listPrefix: string): Promise<void> {
    if (!this.listedUnread) return;
    const tree = this.tree;
    await decodeListedInSlices(tree.clone(), listPrefix);
    if (listPrefix === scopePrefix(this.keySpace, {}) && this.tree === tree) this.listedUnread = false;
  }

  /** True once the cache holds every write the store had when asked (false: too slow, ask the store). */
  private async catchUpWithStore(): Promise<boolean> {
    const revision = await this.revisionCheck.current();
    return this.feed.waitForRevision(revision, this.tuning.consistentReadWaitMs);
  }

  /** Waits until the cache has reached `revision`; 504 when it does not within the wait. */
  private async waitForRevision(revision: number): Promise<void> {
    if (await this.feed.waitForRevision(revision, this.tuning.tooLargeWaitMs)) return;
    throw tooLargeResourceVersion({ requested: revision, current: this.feed.revision });
  }
}

/**
 * The tree of a list, in the store's key order: built in one pass when that is also string order
 * (every key but those with characters beyond U+D7FF, see the file comment), which for 100,000
 * keys takes 2 ms against 55-130 ms inserting them one by one; else by insertion.
 */
function listedTree(keys: string[], objects: CachedObject[]): ObjectTree {
  const inStringOrder = keys.every((key, index) => index === 0 || keys[index - 1] < key);
  if (inStringOrder) return bulkLoad(keys, objects, TREE_NODE_SIZE, compareKeys);
  return new BTree(
    keys.map((key, index) => [key, objects[index]]),
    compareKeys,
  );
}

/** JavaScript string order; see the file comment for why it is the store's byte order here. */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first string after every key starting with `listPrefix` (which ends with "/"). */
function rangeEndOf(listPrefix: string): string {
  return `${listPrefix.slice(0, -1)}0`;
}

/**
 * One page, exactly as the store pages: the first `limit` matching objects from `startKey`;
 * a continue token just past the last examined key when any key follows it; without a
 * selector, the count of keys that follow.
 */
function readPage(
  view: StateView,
  request: { listPrefix: string; startKey: string; limit: number; predicate: Predicate },
): ListResult {
  const { listPrefix, startKey, limit, predicate } = request;
  const end = rangeEndOf(listPrefix);
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  for (const [key, cached] of view.tree.entries(startKey, [])) {
    if (key >= end) break;
    if (limit > 0 && items.length >= limit) {
      hasMore = true;
      break;
    }
    lastKey = key;
    const object = objectOf(cached);
    if (predicate.matches(object)) items.push(object);
  }
  const result: ListResult = { items, resourceVersion: String(view.revision) };
  if (!hasMore || lastKey === undefined) return result;
  const next = `${lastKey}\u0000`;
  return {
    ...result,
    continue: encodeContinueToken({ listPrefix, startKey: next, revision: view.revision }),
    ...(predicate.everything ? { remainingItemCount: view.tree.forRange(next, end, false) } : {}),
  };
}

/** Objects decoded between two turns of the event loop by decodeListedInSlices. */
const DECODE_SLICE = 1_000;

/**
 * Decodes the listed, not yet read objects under `listPrefix` of `tree` (a clone: the live tree
 * changes between slices; the objects are shared, so the live tree's are decoded too). Bytes that
 * do not decode are left for decodesAll to find.
 */
async function decodeListedInSlices(tree: ObjectTree, listPrefix: string): Promise<void> {
  const end = rangeEndOf(listPrefix);
  let decoded = 0;
  for (const [key, cached] of tree.entries(listPrefix, [])) {
    if (key >= end) break;
    if (!(cached instanceof ListedObject) || cached.isDecoded) continue;
    try {
      cached.object();
    } catch (error) {
      if (!isCorruptObjectError(error)) throw error;
    }
    if (++decoded % DECODE_SLICE === 0) await setImmediate();
  }
}

/** Whether every object under `listPrefix` decodes (decoding those listed and not yet read). */
function decodesAll(tree: ObjectTree, listPrefix: string): boolean {
  const end = rangeEndOf(listPrefix);
  for (const [key, cached] of tree.entries(listPrefix, [])) {
    if (key >= end) break;
    try {
      objectOf(cached);
    } catch (error) {
      if (isCorruptObjectError(error)) return false;
      throw error;
    }
  }
  return true;
}

/** Synthetic ADDED events for the objects of a state, in key order, read lazily. */
function* stateEvents(source: {
  tree: ObjectTree;
  listPrefix: string;
  predicate: Predicate;
  endBookmark: number | undefined;
}): Generator<ObjectWatchEvent> {
  const end = rangeEndOf(source.listPrefix);
  for (const [key, cached] of source.tree.entries(source.listPrefix, [])) {
    if (key >= end) break;
    const object = objectOf(cached);
    if (source.predicate.matches(object)) yield { type: 'ADDED', object };
  }
  if (source.endBookmark !== undefined) {
    yield bookmarkEvent(source.endBookmark, { [INITIAL_EVENTS_END_ANNOTATION]: 'true' });
  }
}

/** The ring's events a resuming watcher has not seen, converted as it reads them. */
function* ringEvents(source: {
  events: CacheEvent[];
  namespace: string | undefined;
  predicate: Predicate;
}): Generator<ObjectWatchEvent> {
  for (const event of source.events) {
    if (source.namespace !== undefined && event.namespace !== source.namespace) continue;
    const watchEvent = new WatchEventsOf(event).for(source.predicate);
    if (watchEvent) yield watchEvent;
  }
}
