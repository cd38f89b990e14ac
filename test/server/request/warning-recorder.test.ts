/**
 * The request's warning recorder as the reference's (apiserver endpoints/filters/warning.go):
 * one header per text, each text once, and past 4096 characters in all every text cut to 256,
 * the ones before included, and nothing more once the cut ones reach the limit.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { headerWarningRecorder, WarningList } from '../../../server/request/warning-recorder';

function response(): ServerResponse {
  return new ServerResponse(new IncomingMessage(new Socket()));
}

/** The texts as a client reads them: the header's bytes as UTF-8, the quoted string unescaped. */
function textsOf(res: ServerResponse): string[] {
  const header = res.getHeader('Warning');
  const values = Array.isArray(header) ? header : header === undefined ? [] : [String(header)];
  return values.map((value) =>
    Buffer.from(value, 'latin1')
      .toString('utf8')
      .replace(/^299 - "(.*)"$/s, '$1')
      .replace(/\\(.)/g, '$1'),
  );
}

test('each text once, in the order added; an empty one is no warning', () => {
  const res = response();
  const recorder = headerWarningRecorder(res);
  for (const text of ['b', 'a', '', 'b', 'c']) recorder.add(text);
  expect(res.getHeader('Warning')).toEqual(['299 - "b"', '299 - "a"', '299 - "c"']);
});

test('past 4096 characters every text is cut to 256, and the cut ones stop at the limit', () => {
  const res = response();
  const recorder = headerWarningRecorder(res);
  const texts = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(298)}`);
  for (const text of texts.slice(0, 13)) recorder.add(text);
  // 13 texts of 300: 3900 characters, whole.
  expect(textsOf(res)).toEqual(texts.slice(0, 13));
  for (const text of texts.slice(13)) recorder.add(text);
  // The 14th passes the limit: all 14 cut to 256 (3584), then two more fit before 4096 is reached.
  expect(textsOf(res)).toEqual(texts.slice(0, 16).map((text) => text.slice(0, 256)));
});

test('a text is measured in code points, as Go counts runes', () => {
  const res = response();
  const recorder = headerWarningRecorder(res);
  recorder.add('é'.repeat(4096));
  expect(textsOf(res)).toEqual(['é'.repeat(4096)]);
  recorder.add('x');
  expect(textsOf(res)).toEqual(['é'.repeat(256), 'x']);
});

test('quoted as the reference quotes: only " and \\ escaped, the text\'s UTF-8 bytes as they are', () => {
  const res = response();
  headerWarningRecorder(res).add('a "quoted" \\ 警告 ✓');
  expect(res.getHeader('Warning')).toBe(Buffer.from('299 - "a \\"quoted\\" \\\\ 警告 ✓"', 'utf8').toString('latin1'));
  expect(textsOf(res)).toEqual(['a "quoted" \\ 警告 ✓']);
});

test('a text with a control character is not sent, as the reference cannot quote it', () => {
  const res = response();
  const recorder = headerWarningRecorder(res);
  recorder.add('two\nlines');
  recorder.add('fine');
  expect(textsOf(res)).toEqual(['fine']);
});

test('a warning after the headers went out is dropped', () => {
  const res = response();
  const recorder = headerWarningRecorder(res);
  recorder.add('before');
  res.writeHead(200);
  expect(() => recorder.add('after')).not.toThrow();
  expect(textsOf(res)).toEqual(['before']);
});

test('a list keeps each text once', () => {
  const list = new WarningList();
  for (const text of ['a', 'b', 'a', '']) list.add(text);
  expect(list.texts).toEqual(['a', 'b']);
});
