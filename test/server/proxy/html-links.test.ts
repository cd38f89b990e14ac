/**
 * The links of HTML pages the proxies pass on, rewritten as the reference's proxy transport
 * rewrites them (k8s.io/apimachinery's proxy.Transport over golang.org/x/net/html's tokenizer).
 */
import { deflateRawSync, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { isHtml, rewriteHtmlBody, rewriteHtmlLinks } from '../../../server/proxy/html-links';

const PREFIX = '/api/v1/namespaces/default/pods/web:80/proxy';
/** Paths on the backend go under the proxy's path; relative and other hosts' links stay. */
const underProxy = (url: string) => (url.startsWith('/') ? `${PREFIX}${url}` : url);
const rewrite = (html: string) => rewriteHtmlLinks(Buffer.from(html), underProxy).toString();

describe('rewriteHtmlLinks', () => {
  it.each([
    ['a link', '<a href="/rewriteme">test</a>', `<a href="${PREFIX}/rewriteme">test</a>`],
    [
      'every start tag in Go form: lower case, values quoted and escaped',
      `<A HREF=/x class=big TITLE='say "hi"'>t</A>`,
      `<a href="${PREFIX}/x" class="big" title="say &#34;hi&#34;">t</A>`,
    ],
    ['tags without links too', '<DIV id=a>x</DIV>', '<div id="a">x</DIV>'],
    ['an attribute without a value', '<input disabled src="/i">', `<input disabled="" src="${PREFIX}/i">`],
    ['a self-closing tag', "<img src='/i.png'/>", `<img src="${PREFIX}/i.png"/>`],
    [
      'each element its own attributes',
      '<form action="/post"><img longdesc="/d" usemap="/m" alt="/alt"><body background="/b">',
      `<form action="${PREFIX}/post"><img longdesc="${PREFIX}/d" usemap="${PREFIX}/m" alt="/alt"><body background="${PREFIX}/b">`,
    ],
    [
      'relative links and other hosts left',
      '<a href="relative/x">r</a><a href="http://elsewhere.example/y">e</a>',
      '<a href="relative/x">r</a><a href="http://elsewhere.example/y">e</a>',
    ],
    [
      'entities decoded, then escaped again',
      '<a href="/a?b=1&amp;c=2&lt;">x</a>',
      `<a href="${PREFIX}/a?b=1&amp;c=2&lt;">x</a>`,
    ],
    [
      'text, comments, end tags and scripts byte for byte',
      '<!DOCTYPE html><!-- <a href="/no"> --><script>var s = "<a href=\'/no\'>";</script></p>é',
      '<!DOCTYPE html><!-- <a href="/no"> --><script>var s = "<a href=\'/no\'>";</script></p>é',
    ],
  ])('%s', (_, html, expected) => {
    expect(rewrite(html)).toBe(expected);
  });

  it('passes bytes that are not UTF-8 on unchanged', () => {
    const html = Buffer.concat([Buffer.from('<p>caf'), Buffer.from([0xe9]), Buffer.from('</p><a href="/x">')]);
    expect(rewriteHtmlLinks(html, underProxy)).toEqual(
      Buffer.concat([Buffer.from('<p>caf'), Buffer.from([0xe9]), Buffer.from(`</p><a href="${PREFIX}/x">`)]),
    );
  });
});

describe('rewriteHtmlBody', () => {
  const page = '<a href="/x">x</a>';
  const rewritten = `<a href="${PREFIX}/x">x</a>`;

  it('rewrites within gzip and raw deflate, as Go reads them', () => {
    const gzip = rewriteHtmlBody(gzipSync(page), 'gzip', underProxy);
    expect(gunzipSync(gzip!).toString()).toBe(rewritten);
    const deflate = rewriteHtmlBody(deflateRawSync(page), 'deflate', underProxy);
    expect(inflateRawSync(deflate!).toString()).toBe(rewritten);
    expect(rewriteHtmlBody(Buffer.from(page), undefined, underProxy)?.toString()).toBe(rewritten);
  });

  it('leaves an encoding it does not read', () => {
    expect(rewriteHtmlBody(Buffer.from(page), 'br', underProxy)).toBeUndefined();
  });
});

test('only text/html is rewritten', () => {
  expect([isHtml('text/html'), isHtml('text/html; charset=utf-8'), isHtml('text/plain'), isHtml(undefined)]).toEqual([
    true,
    true,
    false,
    false,
  ]);
});
