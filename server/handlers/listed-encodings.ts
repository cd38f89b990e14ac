/**
 * The encoded items of a collection (compact JSON texts, protobuf bodies) kept while the
 * collection is being listed (see SharedItemEncodings): lists that follow one another within
 * `idleMs` write the items they share without encoding them again, and once no list has come for
 * `idleMs` every encoding is let go, so that a collection listed once (a client's start) does not
 * hold its encoded items beside its objects for as long as they live: the JSON texts of 10,000
 * pods are about 35 MiB.
 */
import type { ItemEncodings } from '../responsewriters/respond';

export class ListedEncodings {
  private kept: ItemEncodings = { texts: new WeakMap(), messages: new WeakMap() };
  private lastUseMs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly idleMs: number) {}

  /** The encodings kept for the list about to be written; a list keeps them for `idleMs` more. */
  forList(): ItemEncodings {
    this.lastUseMs = Date.now();
    this.timer ??= setTimeout(this.letGoIfIdle, this.idleMs).unref();
    return this.kept;
  }

  private readonly letGoIfIdle = (): void => {
    const idleMs = Date.now() - this.lastUseMs;
    if (idleMs < this.idleMs) {
      this.timer = setTimeout(this.letGoIfIdle, this.idleMs - idleMs).unref();
      return;
    }
    this.timer = undefined;
    this.kept = { texts: new WeakMap(), messages: new WeakMap() };
  };
}
