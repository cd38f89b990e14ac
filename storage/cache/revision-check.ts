/**
 * The store's current revision for consistent reads, one request for a burst of them.
 *
 * A consistent read must see every write acknowledged before it arrived, so it may take the
 * answer of a revision request sent after its arrival, never one already in flight (that one
 * may have been answered before the write). Reads that arrive while a request is in flight
 * therefore wait for the next one, which goes out when the current one settles and serves all
 * of them: at most one request in flight and one queued, whatever the number of readers, and a
 * read waits at most two round trips.
 */
export class SharedRevisionCheck {
  private inFlight: Promise<number> | undefined;
  private queued: Promise<number> | undefined;

  constructor(private readonly readRevision: () => Promise<number>) {}

  /** A current revision read from the store after this call. */
  current(): Promise<number> {
    const inFlight = this.inFlight;
    if (inFlight === undefined) return this.send();
    this.queued ??= inFlight.then(
      () => this.sendQueued(),
      () => this.sendQueued(),
    );
    return this.queued;
  }

  private sendQueued(): Promise<number> {
    this.queued = undefined;
    return this.send();
  }

  private send(): Promise<number> {
    const request = this.readRevision();
    this.inFlight = request;
    const settled = (): void => {
      if (this.inFlight === request) this.inFlight = undefined;
    };
    request.then(settled, settled);
    return request;
  }
}
