/**
 * The links of an HTML page a proxy passes on (pods/proxy, services/proxy, nodes/proxy), put
 * through the proxy again as the reference's proxy transport puts them: every start tag is read
 * and written back in Go's form (lower-case names, each attribute `key="escaped value"`), its URL
 * attributes rewritten; everything between tags is passed on byte for byte. A compressed page
 * (gzip, or deflate, which Go's transport reads as a raw DEFLATE stream) is rewritten inside its
 * compression; any other encoding is left alone, as the reference leaves it.
 */
import { deflateRawSync, gunzipSync, gzipSync, inflateRawSync, constants } from 'node:zlib';

/** htmlparser2, loaded with the first page rewritten: loading it costs a start some 30 ms. */
let parserClass: typeof import('htmlparser2').Parser | undefined;

/** Per element, the attributes that hold a URL: the reference's list (after the HTML 4 and 5 specifications). */
const URL_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href'],
  applet: ['codebase'],
  area: ['href'],
  audio: ['src'],
  base: ['href'],
  blockquote: ['cite'],
  body: ['background'],
  button: ['formaction'],
  command: ['icon'],
  del: ['cite'],
  embed: ['src'],
  form: ['action'],
  frame: ['longdesc', 'src'],
  head: ['profile'],
  html: ['manifest'],
  iframe: ['longdesc', 'src'],
  img: ['longdesc', 'src', 'usemap'],
  input: ['src', 'usemap', 'formaction'],
  ins: ['cite'],
  link: ['href'],
  object: ['classid', 'codebase', 'data', 'usemap'],
  q: ['cite'],
  script: ['src'],
  source: ['src'],
  video: ['poster', 'src'],
};

/** Go's html.EscapeString, which writes attribute values back. */
const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&#34;',
  '\r': '&#13;',
};
const escapeValue = (value: string) => value.replace(/[&'<>"\r]/g, (char) => ESCAPES[char]);

/** Whether a backend's `Content-Type` is one the reference rewrites: exactly `text/html`, parameters aside. */
export function isHtml(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';', 1)[0].trim() === 'text/html';
}

/**
 * `html` with each URL attribute's value replaced by `rewriteUrl`'s answer. Valid UTF-8 is read
 * as such; any other bytes one character each, so that they come back unchanged.
 */
export function rewriteHtmlLinks(html: Buffer, rewriteUrl: (url: string) => string): Buffer {
  let encoding: BufferEncoding = 'utf8';
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(html);
  } catch {
    encoding = 'latin1';
    text = html.toString('latin1');
  }
  const pieces: string[] = [];
  let passedUpTo = 0;
  let attributes: [string, string][] = [];
  parserClass ??= (require('htmlparser2') as typeof import('htmlparser2')).Parser;
  const parser = new parserClass(
    {
      onattribute: (name, value) => attributes.push([name, value]),
      onopentag: (name, _, implied) => {
        const own = attributes;
        attributes = [];
        // A tag the parser supposes (a `</p>` with no `<p>`) has no text of its own.
        if (implied) return;
        const start = parser.startIndex;
        const end = parser.endIndex + 1;
        const urlAttributes = URL_ATTRIBUTES[name] ?? [];
        const written = own.map(
          ([key, value]) => ` ${key}="${escapeValue(urlAttributes.includes(key) ? rewriteUrl(value) : value)}"`,
        );
        // Go calls a tag self-closing when its last characters are `/>`, whatever the element.
        const close = text.slice(end - 2, end) === '/>' ? '/>' : '>';
        pieces.push(text.slice(passedUpTo, start), `<${name}${written.join('')}${close}`);
        passedUpTo = end;
      },
    },
    { decodeEntities: true },
  );
  parser.end(text);
  pieces.push(text.slice(passedUpTo));
  return Buffer.from(pieces.join(''), encoding);
}

/**
 * A page's body with its links rewritten, within its `Content-Encoding`; undefined for an
 * encoding the reference does not rewrite within (the body then goes on as it came).
 */
export function rewriteHtmlBody(
  body: Buffer,
  contentEncoding: string | undefined,
  rewriteUrl: (url: string) => string,
): Buffer | undefined {
  switch (contentEncoding ?? '') {
    case '':
      return rewriteHtmlLinks(body, rewriteUrl);
    case 'gzip':
      return gzipSync(rewriteHtmlLinks(gunzipSync(body), rewriteUrl));
    case 'deflate':
      return deflateRawSync(rewriteHtmlLinks(inflateRawSync(body), rewriteUrl), {
        level: constants.Z_BEST_COMPRESSION,
      });
    default:
      return undefined;
  }
}
