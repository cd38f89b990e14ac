/**
 * Go's url.Parse and url.ParseRequestURI: the parts and the error texts, as Go 1.26.8 gave them
 * for each string (recorded with a Go program calling both).
 */
import { GoURL, parseGoRequestURI, parseGoURL } from '../../../server/net/go-url';

type Parser = typeof parseGoURL;

function parts(url: GoURL) {
  return {
    scheme: url.scheme,
    user: url.user?.toString(),
    host: url.host,
    hostname: url.hostname(),
    port: url.port(),
    escapedPath: url.escapedPath(),
    rawQuery: url.rawQuery,
    fragment: url.fragment,
    query: Object.fromEntries(url.query()),
  };
}

const none = {
  user: undefined,
  host: '',
  hostname: '',
  port: '',
  escapedPath: '',
  rawQuery: '',
  fragment: '',
  query: {},
};

describe('the parts Go finds', () => {
  it.each<[string, Parser, string, ReturnType<typeof parts>]>([
    [
      'every part, escapes decoded where Go decodes them',
      parseGoURL,
      'https://u%41:p@example.com:80/a%2fb%20c?k=v+w&k=%FF#fr%41g',
      {
        scheme: 'https',
        user: 'uA:p',
        host: 'example.com:80',
        hostname: 'example.com',
        port: '80',
        escapedPath: '/a%2fb%20c',
        rawQuery: 'k=v+w&k=%FF',
        fragment: 'frAg',
        query: { k: ['v w', '\ufffd'] },
      },
    ],
    [
      'a request URI keeps a fragment in its query',
      parseGoRequestURI,
      'https://example.com/?k=v#f',
      {
        ...none,
        scheme: 'https',
        host: 'example.com',
        hostname: 'example.com',
        escapedPath: '/',
        rawQuery: 'k=v#f',
        query: { k: ['v#f'] },
      },
    ],
    ['an opaque URL has no path', parseGoRequestURI, 'mailto:x', { ...none, scheme: 'mailto' }],
    [
      'a port after the last colon outside http(s)',
      parseGoURL,
      'foo://a:1:2/',
      { ...none, scheme: 'foo', host: 'a:1:2', hostname: 'a:1', port: '2', escapedPath: '/' },
    ],
    [
      'an IPv6 literal with an escaped zone',
      parseGoRequestURI,
      'http://[fe80::1%25%65n0]:8/',
      { ...none, scheme: 'http', host: '[fe80::1%en0]:8', hostname: 'fe80::1%en0', port: '8', escapedPath: '/' },
    ],
    [
      'a path escaped where Go would escape it',
      parseGoURL,
      'https://example.com/path with spaces/',
      { ...none, scheme: 'https', host: 'example.com', hostname: 'example.com', escapedPath: '/path%20with%20spaces/' },
    ],
    ['the target `*`, unescaped', parseGoRequestURI, '*', { ...none, scheme: '', escapedPath: '*' }],
    ['a relative path', parseGoURL, '../r', { ...none, scheme: '', escapedPath: '../r' }],
  ])('%s', (_name, parser, raw, expected) => {
    const parsed = parser(raw);
    if ('error' in parsed) throw new Error(parsed.error);
    expect(parts(parsed)).toEqual(expected);
  });
});

describe("Go's errors", () => {
  it.each<[string, Parser, string, string]>([
    [
      'a fragment in a request URI host',
      parseGoRequestURI,
      'https://example.com#frag',
      'invalid character "#" in host name',
    ],
    ['http(s) reads the port after the first colon', parseGoURL, 'https://a:1:2/', 'invalid port ":1:2" after host'],
    ['a port of letters', parseGoURL, 'http://a:port/', 'invalid port ":port" after host'],
    ['an IPv4 literal in brackets', parseGoURL, 'http://[1.2.3.4]/', 'invalid IP-literal'],
    ['a bracket not at the start', parseGoURL, 'http://x[::1]/', 'invalid IP-literal'],
    ['no address in brackets', parseGoURL, 'http://[zz]/', 'invalid host: ParseAddr("zz"): unable to parse IP'],
    ['an unclosed bracket', parseGoURL, 'http://[::1', "missing ']' in host"],
    ['an escape of ASCII in a host', parseGoURL, 'http://a%41/', 'invalid URL escape "%41"'],
    ['a space in a host', parseGoURL, 'http://exa mple.com/', 'invalid character " " in host name'],
    ['a space in user information', parseGoURL, 'http://u p@a/', 'net/url: invalid userinfo'],
    ['a bad escape in a fragment', parseGoURL, '/p?x#%zz', 'invalid URL escape "%zz"'],
    ['a relative path as a request URI', parseGoRequestURI, '../r', 'invalid URI for request'],
    ['an empty request URI', parseGoRequestURI, '', 'empty url'],
    ['no scheme before the colon', parseGoURL, '://x', 'missing protocol scheme'],
    ['a control character', parseGoURL, 'http://x\n', 'net/url: invalid control character in URL'],
  ])('%s', (_name, parser, raw, reason) => {
    expect(parser(raw)).toEqual({ error: `parse ${JSON.stringify(raw)}: ${reason}` });
  });

  it('quotes the URL without its fragment when the rest is refused', () => {
    expect(parseGoURL('http://a:port/#f')).toEqual({
      error: 'parse "http://a:port/": invalid port ":port" after host',
    });
  });
});
