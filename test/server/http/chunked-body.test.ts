/**
 * Chunked bodies decoded as Go's server decodes them, against the answers of kube-apiserver
 * 1.34.4 (go1.26.8) to chunked ConfigMap POSTs (fixtures/chunked-bodies.reference.json): a body
 * it created is decoded to the object, and a body it refused fails with the words of Go's
 * chunked reader the reference passed on. Each body is fed whole and a byte at a time, as it
 * may arrive.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkedBodyDecoder, type ChunkedStep } from '../../../server/http/chunked-body';

interface Case {
  readonly name: string;
  readonly body: string;
  readonly code: number;
  readonly message?: string;
}

const CASES = (
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'chunked-bodies.reference.json'), 'utf8')) as { cases: Case[] }
).cases;

/** What the decoder made of the pieces: the data, and how it ended. */
function decoded(pieces: readonly Buffer[]): { data: string; end: string } {
  const decoder = new ChunkedBodyDecoder();
  const steps: ChunkedStep[] = pieces.flatMap((piece) => decoder.feed(piece));
  const data = steps.flatMap((step) => (step.kind === 'data' ? [step.data] : []));
  const last = steps.at(-1);
  const end = last?.kind === 'error' ? last.message : last?.kind === 'end' ? 'end' : 'unfinished';
  return { data: Buffer.concat(data).toString('latin1'), end };
}

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const bytes = Buffer.from(c.body, 'latin1');
  const byByte = Array.from(bytes, (byte) => Buffer.from([byte]));
  for (const pieces of [[bytes], byByte]) {
    const { data, end } = decoded(pieces);
    if (c.code === 201) {
      expect(end).toBe('end');
      expect(JSON.parse(data)).toMatchObject({ kind: 'ConfigMap' });
    } else {
      expect({ code: c.code, end }).toEqual({ code: 500, end: c.message });
    }
  }
});

test('the body ends at the zero chunk: nothing after it is taken', () => {
  const decoder = new ChunkedBodyDecoder();
  expect(decoder.feed(Buffer.from('2\r\n{}\r\n0\r\n\r\nGET / HTTP/1.1\r\n'))).toEqual([
    { kind: 'data', data: Buffer.from('{}') },
    { kind: 'end' },
  ]);
  expect(decoder.feed(Buffer.from('more'))).toEqual([]);
});
