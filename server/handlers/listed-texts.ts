/**
 * The JSON texts of a collection's items kept while the collection is being listed (see
 * SharedItemTexts): lists that follow one another within `idleMs` write the items they share
 * without encoding them again, and once no list has come for `idleMs` every text is let go, so
 * that a collection listed once (a client's start) does not hold its JSON beside its objects for
 * as long as they live: 10,000 pods' texts are about 35 MiB.
 */
export class ListedTexts {
  private texts = new WeakMap<object, string>();
  private lastUseMs = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly idleMs: number) {}

  /** The texts kept for the list about to be written; a list keeps them for `idleMs` more. */
  forList(): WeakMap<object, string> {
    this.lastUseMs = Date.now();
    this.timer ??= setTimeout(this.letGoIfIdle, this.idleMs).unref();
    return this.texts;
  }

  private readonly letGoIfIdle = (): void => {
    const idleMs = Date.now() - this.lastUseMs;
    if (idleMs < this.idleMs) {
      this.timer = setTimeout(this.letGoIfIdle, this.idleMs - idleMs).unref();
      return;
    }
    this.timer = undefined;
    this.texts = new WeakMap();
  };
}
