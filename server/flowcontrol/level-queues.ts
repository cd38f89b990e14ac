/**
 * One priority level's seats and queues. A request runs at once while the level has a free
 * seat (or nothing runs at all, so a level of zero seats still makes progress, as the
 * reference's); otherwise a `Reject` level refuses it and a `Queue` level puts it in the
 * shortest queue of the hand its flow is dealt (shuffle sharding), or refuses it when that
 * queue is full. A freed seat goes to the head of the next non-empty queue, round robin.
 *
 * Simplified from the reference's fair queuing: every request takes one seat (no width
 * estimation for lists), queues take turns one request at a time (round robin, not virtual
 * finish times), and a level never borrows or lends seats. Each flow still gets its own turn
 * among the flows of its level, and memory is bounded by queues × queueLengthLimit.
 */

export interface QueuingSettings {
  readonly queues: number;
  readonly handSize: number;
  readonly queueLengthLimit: number;
}

export interface LevelSettings {
  readonly concurrencyLimit: number;
  /** Absent: the level's limit response is `Reject`. */
  readonly queuing?: QueuingSettings;
}

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

interface Waiter {
  readonly start: () => void;
}

/** How a request was admitted: running now, waiting (cancel to leave the queue), or refused. */
export type Admission =
  | { readonly outcome: 'dispatched' }
  | { readonly outcome: 'queued'; cancel(): boolean }
  | { readonly outcome: 'rejected'; readonly reason: RejectReason };

/** Hands are cached per flow; the cache is dropped whole past this many flows. */
const MAX_CACHED_HANDS = 10_000;

export class LevelQueues {
  executing = 0;
  waiting = 0;
  private settings: LevelSettings;
  private queues: Waiter[][] = [];
  private nextQueue = 0;
  private readonly hands = new Map<string, readonly number[]>();

  constructor(settings: LevelSettings) {
    this.settings = settings;
    this.queues = Array.from({ length: settings.queuing?.queues ?? 0 }, () => []);
  }

  /** New limits from a configuration change; waiting requests are dealt again into the new queues. */
  configure(settings: LevelSettings): void {
    const waiters = this.queues.flat();
    this.settings = settings;
    this.hands.clear();
    this.queues = Array.from({ length: settings.queuing?.queues ?? 0 }, () => []);
    this.nextQueue = 0;
    if (this.queues.length === 0) {
      // Now a Reject level: what waited runs as seats free up, in arrival order.
      this.queues = [waiters];
      return;
    }
    waiters.forEach((waiter, i) => this.queues[i % this.queues.length].push(waiter));
  }

  /** `start` runs synchronously when dispatched at once, else later when a seat frees up. */
  admit(flowKey: string, start: () => void): Admission {
    if (this.executing < this.settings.concurrencyLimit || this.executing === 0) {
      this.executing++;
      start();
      return { outcome: 'dispatched' };
    }
    const queuing = this.settings.queuing;
    if (queuing === undefined) return { outcome: 'rejected', reason: 'concurrency-limit' };
    const queue = this.shortestInHand(flowKey, queuing);
    if (queue.length >= queuing.queueLengthLimit) return { outcome: 'rejected', reason: 'queue-full' };
    const waiter: Waiter = { start };
    queue.push(waiter);
    this.waiting++;
    return {
      outcome: 'queued',
      cancel: () => {
        const at = queue.indexOf(waiter);
        if (at < 0) return false;
        queue.splice(at, 1);
        this.waiting--;
        return true;
      },
    };
  }

  /** One dispatched request ended: its seat goes to the next waiting one. */
  finish(): void {
    this.executing--;
    while (this.waiting > 0 && (this.executing < this.settings.concurrencyLimit || this.executing === 0)) {
      const waiter = this.takeNext();
      if (waiter === undefined) return;
      this.executing++;
      waiter.start();
    }
  }

  private takeNext(): Waiter | undefined {
    for (let step = 0; step < this.queues.length; step++) {
      const index = (this.nextQueue + step) % this.queues.length;
      const waiter = this.queues[index].shift();
      if (waiter !== undefined) {
        this.nextQueue = (index + 1) % this.queues.length;
        this.waiting--;
        return waiter;
      }
    }
    return undefined;
  }

  private shortestInHand(flowKey: string, queuing: QueuingSettings): Waiter[] {
    let hand = this.hands.get(flowKey);
    if (hand === undefined) {
      if (this.hands.size >= MAX_CACHED_HANDS) this.hands.clear();
      hand = dealHand(flowHash(flowKey), queuing.queues, Math.min(queuing.handSize, queuing.queues));
      this.hands.set(flowKey, hand);
    }
    let shortest = this.queues[hand[0]];
    for (const index of hand) if (this.queues[index].length < shortest.length) shortest = this.queues[index];
    return shortest;
  }
}

/** FNV-1a over the key, twice with different offsets, into a 52-bit number. */
export function flowHash(key: string): number {
  let high = 0x811c9dc5;
  let low = 0x050c5d1f;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    high = Math.imul(high ^ code, 0x01000193);
    low = Math.imul(low ^ code, 0x01000193);
  }
  return (high >>> 0) * 2 ** 20 + ((low >>> 0) >>> 12);
}

/**
 * Deals `handSize` distinct queues out of `deckSize` from the hash, as the reference's
 * shuffle-sharding dealer: each draw is the hash modulo the cards left, then skips the cards
 * already dealt.
 */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const hand: number[] = [];
  let rest = hash;
  for (let i = 0; i < handSize; i++) {
    const left = deckSize - i;
    let card = rest % left;
    rest = Math.floor(rest / left);
    for (const dealt of [...hand].sort((a, b) => a - b)) if (card >= dealt) card++;
    hand.push(card);
  }
  return hand;
}
