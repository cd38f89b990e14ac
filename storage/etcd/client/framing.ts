/**
 * gRPC's message framing on an HTTP/2 stream: each message is a 1-byte compressed flag
 * (always 0 here: no compression is negotiated), a 4-byte big-endian length, then the message.
 * A message may arrive split across DATA frames, and one DATA frame may hold several.
 */

const PREFIX_BYTES = 5;

export function frameMessage(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  framed[0] = 0;
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, PREFIX_BYTES);
  return framed;
}

/**
 * Reassembles messages from a stream's data chunks. A message larger than a chunk (a Range
 * answer of thousands of objects is tens of megabytes, in 16 KiB DATA frames) is held as a list
 * of chunks until its last byte has come, then copied once: joining what had come on every
 * chunk made such an answer quadratic (a 7 MB Range took 9 s, a 24 MB one never finished).
 */
export class MessageDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** The messages completed by `chunk`, in order. */
  push(chunk: Buffer): Buffer[] {
    let buffer = chunk;
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes < this.pendingMessageBytes()) return [];
      buffer = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const messages: Buffer[] = [];
    let offset = 0;
    while (buffer.length - offset >= PREFIX_BYTES) {
      if (buffer[offset] !== 0) throw new Error('gRPC: a compressed message, though no compression was negotiated');
      const length = buffer.readUInt32BE(offset + 1);
      const end = offset + PREFIX_BYTES + length;
      if (end > buffer.length) break;
      messages.push(buffer.subarray(offset + PREFIX_BYTES, end));
      offset = end;
    }
    if (offset < buffer.length) {
      // Held as a view: the chunks that complete it are added, then one concat copies all.
      this.pending.push(buffer.subarray(offset));
      this.pendingBytes = buffer.length - offset;
    }
    return messages;
  }

  /** The framed size of the message begun in `pending`, once its prefix is there (until then, the prefix's). */
  private pendingMessageBytes(): number {
    if (this.pendingBytes < PREFIX_BYTES) return PREFIX_BYTES;
    // A prefix split across chunks is joined once, so the first piece holds it from then on.
    if (this.pending[0].length < PREFIX_BYTES) this.pending = [Buffer.concat(this.pending, this.pendingBytes)];
    return PREFIX_BYTES + this.pending[0].readUInt32BE(1);
  }

  /** Whether a message was begun and not finished (a stream that ends so was cut short). */
  get partial(): boolean {
    return this.pendingBytes > 0;
  }
}
