/**
 * The warnings one request gathers for its client, as the reference's per-request recorder
 * (apiserver endpoints/filters/warning.go) keeps them: each text once, in the order it arose,
 * written into the answer's `Warning` headers the moment it is added. So whatever ends the
 * request, a success or a refusal, carries what was warned of before it: a decoder's unknown
 * fields, a webhook's warnings beside its denial.
 */
import type { ServerResponse } from 'node:http';

export interface WarningRecorder {
  /** Adds a warning for the client; an empty text, or one already added, adds nothing. */
  add(text: string): void;
}

/** Past this many characters of warning text in all, every warning is cut to TRUNCATED_ITEM_LENGTH. */
const TOTAL_LENGTH_LIMIT = 4 * 1024;
const TRUNCATED_ITEM_LENGTH = 256;

/** Go's unicode.IsControl: the reference writes no warning whose text holds one. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * `299 - "<text>"`, one header value per warning, quoted as the reference quotes it (only `"` and
 * `\` escaped). Node sends each character of a header as one byte, so the text goes as its UTF-8
 * bytes, as Go writes them.
 */
function headerValue(text: string): string {
  return Buffer.from(`299 - "${text.replace(/["\\]/g, '\\$&')}"`, 'utf8').toString('latin1');
}

/** Code points, as Go counts runes. */
function lengthOf(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

function truncated(text: string): string {
  return lengthOf(text) > TRUNCATED_ITEM_LENGTH ? [...text].slice(0, TRUNCATED_ITEM_LENGTH).join('') : text;
}

/**
 * A recorder writing into `res`'s headers. Once the texts pass 4 KiB in all, the headers are
 * written again with every text (those before included) cut to 256 characters, and further
 * texts are taken only while the cut ones stay under the limit, as the reference truncates.
 * A warning added after the headers went out (a stream already answering) is dropped.
 */
export function headerWarningRecorder(res: ServerResponse): WarningRecorder {
  const recorded = new Set<string>();
  const ordered: string[] = [];
  let written = 0;
  let truncating = false;
  const write = (text: string) => {
    if (CONTROL_CHARACTER.test(text)) return;
    written += lengthOf(text);
    res.appendHeader('Warning', headerValue(text));
  };
  return {
    add(text) {
      if (text === '' || recorded.has(text) || res.headersSent) return;
      if (truncating && written >= TOTAL_LENGTH_LIMIT) return;
      recorded.add(text);
      ordered.push(text);
      if (truncating) return write(truncated(text));
      if (written + lengthOf(text) <= TOTAL_LENGTH_LIMIT) return write(text);
      truncating = true;
      written = 0;
      res.removeHeader('Warning');
      for (const each of ordered) write(truncated(each));
    },
  };
}

/** A recorder that keeps the texts, for writes no client hears (the server's own) and for tests. */
export class WarningList implements WarningRecorder {
  readonly texts: string[] = [];

  add(text: string): void {
    if (text !== '' && !this.texts.includes(text)) this.texts.push(text);
  }
}
