/** The pure parts of the object layer: keys, codec, resourceVersion, continue tokens, list semantics. */
import { ObjectError } from '../../../storage/errors';
import { decodeObject, encodeObject } from '../../../storage/objects/codec';
import { decodeContinueToken, encodeContinueToken } from '../../../storage/objects/continue-token';
import { objectKey, qualifiedResourceName, scopePrefix } from '../../../storage/objects/keys';
import { interpretListOptions } from '../../../storage/objects/list-request';
import { parseResourceVersion } from '../../../storage/objects/resource-version';
import { EVERYTHING, ListOptions } from '../../../storage/objects/types';

function errorOf(action: () => unknown): ObjectError {
  try {
    action();
  } catch (error) {
    if (error instanceof ObjectError) return error;
    throw error;
  }
  throw new Error('expected an ObjectError');
}

describe('keys', () => {
  it('builds namespaced and cluster-scoped keys and list prefixes', () => {
    expect(objectKey({ keyPrefix: '/registry/pods', namespaced: true }, { namespace: 'ns', name: 'a' })).toBe(
      '/registry/pods/ns/a',
    );
    expect(objectKey({ keyPrefix: '/registry/nodes', namespaced: false }, { name: 'n1' })).toBe('/registry/nodes/n1');
    expect(scopePrefix({ keyPrefix: '/registry/pods', namespaced: true }, { namespace: 'ns' })).toBe(
      '/registry/pods/ns/',
    );
    expect(scopePrefix({ keyPrefix: '/registry/pods', namespaced: true }, {})).toBe('/registry/pods/');
  });

  it.each([
    ['.', `Name parameter invalid: ".": may not be '.'`],
    ['..', `Name parameter invalid: "..": may not be '..'`],
    ['a/b', `Name parameter invalid: "a/b": may not contain '/'`],
    ['a%/b', `Name parameter invalid: "a%/b": may not contain '/';may not contain '%'`],
    ['', 'Name parameter required.'],
  ])('rejects the name %j', (name, message) => {
    const error = errorOf(() =>
      objectKey({ keyPrefix: '/registry/pods', namespaced: true }, { namespace: 'ns', name }),
    );
    expect(error.reason).toBe('BadRequest');
    expect(error.message).toBe(message);
  });

  it('rejects a namespace that would escape the prefix', () => {
    expect(
      errorOf(() => scopePrefix({ keyPrefix: '/registry/pods', namespaced: true }, { namespace: '..' })).message,
    ).toBe(`Namespace parameter invalid: "..": may not be '..'`);
  });

  it('names resources as the reference does', () => {
    expect(qualifiedResourceName({ group: '', resource: 'pods' })).toBe('pods');
    expect(qualifiedResourceName({ group: 'apps', resource: 'deployments' })).toBe('deployments.apps');
  });
});

describe('codec', () => {
  it('stores no resourceVersion and injects the mod revision on read', () => {
    const value = encodeObject({ kind: 'Pod', metadata: { name: 'a', resourceVersion: '12', uid: 'u' } });
    expect(JSON.parse(value.toString())).toEqual({ kind: 'Pod', metadata: { name: 'a', uid: 'u' } });
    expect(decodeObject({ key: '/k', value, modRevision: 42 }).metadata.resourceVersion).toBe('42');
  });

  it('reports undecodable bytes as an internal error', () => {
    expect(errorOf(() => decodeObject({ key: '/k', value: Buffer.from('{'), modRevision: 1 })).reason).toBe(
      'InternalError',
    );
  });
});

describe('parseResourceVersion', () => {
  it.each([
    [undefined, 0],
    ['', 0],
    ['0', 0],
    ['17', 17],
  ])('parses %j', (input, revision) => {
    expect(parseResourceVersion(input)).toBe(revision);
  });

  it.each([
    ['abc', 'invalid syntax'],
    ['-1', 'invalid syntax'],
    ['1.5', 'invalid syntax'],
    ['18446744073709551616', 'value out of range'],
  ])('rejects %j', (input, problem) => {
    const error = errorOf(() => parseResourceVersion(input));
    expect(error.reason).toBe('BadRequest');
    expect(error.message).toBe(
      `invalid resource version: resourceVersion: Invalid value: "${input}": strconv.ParseUint: parsing "${input}": ${problem}`,
    );
  });
});

describe('continue tokens', () => {
  const prefix = '/registry/pods/';
  const raw = (json: string): string => Buffer.from(json).toString('base64url');

  it('encodes the reference format', () => {
    const token = encodeContinueToken({ listPrefix: prefix, startKey: '/registry/pods/ns/a\u0000', revision: 42 });
    expect(token).not.toContain('=');
    expect(Buffer.from(token, 'base64url').toString()).toBe('{"v":"meta.k8s.io/v1","rv":42,"start":"ns/a\\u0000"}');
    expect(decodeContinueToken(token, prefix)).toEqual({ revision: 42, startKey: '/registry/pods/ns/a\u0000' });
  });

  it('decodes a token whose start key is rooted, and the latest-revision marker', () => {
    expect(decodeContinueToken(raw('{"v":"meta.k8s.io/v1","rv":-1,"start":"/ns/b"}'), prefix)).toEqual({
      revision: -1,
      startKey: '/registry/pods/ns/b',
    });
  });

  it.each([
    ['not base64', '!!!', 'continue key is not valid: illegal base64 data at input byte 0'],
    ['padded', `${raw('{"v":"x"}')}=`, 'continue key is not valid: illegal base64 data at input byte 12'],
    // Go's encoding/json words, recorded from kube-apiserver 1.34.4.
    ['not JSON', raw('xx'), "continue key is not valid: invalid character 'x' looking for beginning of value"],
    [
      'followed by text',
      raw('{"v":"meta.k8s.io/v1","rv":1,"start":"a"}x'),
      "continue key is not valid: invalid character 'x' after top-level value",
    ],
    [
      'holding a raw control character',
      raw('{"v":"meta.k8s.io/v1","rv":1,"start":"a\u0000"}'),
      "continue key is not valid: invalid character '\\x00' in string literal",
    ],
    [
      'holding a bad escape',
      raw('{"v":"meta.k8s.io/v1","rv":1,"start":"a\\q"}'),
      "continue key is not valid: invalid character 'q' in string escape code",
    ],
    [
      'missing a comma',
      raw('{"v":"meta.k8s.io/v1" "rv":1}'),
      "continue key is not valid: invalid character '\"' after object key:value pair",
    ],
    [
      'with a trailing comma',
      raw('{"v":"meta.k8s.io/v1",}'),
      "continue key is not valid: invalid character '}' looking for beginning of object key string",
    ],
    ['cut short', raw('{"v":"meta.k8s.io/v1","rv":1'), 'continue key is not valid: unexpected end of JSON input'],
    [
      'an array',
      raw('[1]'),
      'continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken',
    ],
    [
      'a string',
      raw('"abc"'),
      'continue key is not valid: json: cannot unmarshal string into Go value of type storage.continueToken',
    ],
    [
      'a number',
      raw('5'),
      'continue key is not valid: json: cannot unmarshal number into Go value of type storage.continueToken',
    ],
    ['null', raw('null'), 'continue key is not valid: server does not recognize this encoded version '],
    [
      'with a numeric version',
      raw('{"v":5,"rv":1,"start":"a"}'),
      'continue key is not valid: json: cannot unmarshal number into Go struct field continueToken.v of type string',
    ],
    [
      'with a numeric start',
      raw('{"v":"meta.k8s.io/v1","rv":1,"start":5}'),
      'continue key is not valid: json: cannot unmarshal number into Go struct field continueToken.start of type string',
    ],
    [
      'with two bad members (the first is named)',
      raw('{"v":"meta.k8s.io/v1","rv":1.5,"start":5}'),
      'continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64',
    ],
    [
      'with a bad revision named in capitals',
      raw('{"V":"meta.k8s.io/v1","RV":1.5,"Start":"a"}'),
      'continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64',
    ],
    [
      'unknown version',
      raw('{"v":"v2","rv":3,"start":"a"}'),
      'continue key is not valid: server does not recognize this encoded version v2',
    ],
    [
      'zero revision',
      raw('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'),
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    ],
    [
      'empty start',
      raw('{"v":"meta.k8s.io/v1","rv":3,"start":""}'),
      'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
    ],
    [
      'climbing start',
      raw('{"v":"meta.k8s.io/v1","rv":3,"start":"../secrets/x"}'),
      'continue key is not valid: ../secrets/x',
    ],
    // Go's unmarshal errors for a revision that is no int64, recorded from kube-apiserver 1.34.4.
    [
      'past int64',
      raw('{"v":"meta.k8s.io/v1","rv":99999999999999999999,"start":"a"}'),
      'continue key is not valid: json: cannot unmarshal number 99999999999999999999 into Go struct field continueToken.rv of type int64',
    ],
    [
      'a fraction',
      raw('{"v":"v2","rv":1.5,"start":"a"}'),
      'continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64',
    ],
    [
      'an exponent',
      raw('{"start":"{\\"rv\\":1}","rv":1e3}'),
      'continue key is not valid: json: cannot unmarshal number 1e3 into Go struct field continueToken.rv of type int64',
    ],
    [
      'a string',
      raw('{"v":"meta.k8s.io/v1","rv":"5","start":"a"}'),
      'continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64',
    ],
  ])('rejects a token that is %s', (_case, token, message) => {
    const error = errorOf(() => decodeContinueToken(token, prefix));
    expect(error.reason).toBe('BadRequest');
    expect(error.message).toBe(`invalid continue token: ${message}`);
  });

  it('reads a revision below -1 as the newest, and member names in any case, as Go decodes them', () => {
    expect(decodeContinueToken(raw('{"v":"meta.k8s.io/v1","rv":-5,"start":"ns/b"}'), prefix)).toEqual({
      revision: -1,
      startKey: '/registry/pods/ns/b',
    });
    expect(decodeContinueToken(raw('{"V":"meta.k8s.io/v1","Rv":7,"START":"ns/b"}'), prefix)).toEqual({
      revision: 7,
      startKey: '/registry/pods/ns/b',
    });
  });
});

describe('interpretListOptions', () => {
  const prefix = '/registry/pods/';
  const token = encodeContinueToken({ listPrefix: prefix, startKey: `${prefix}b\u0000`, revision: 9 });
  const options = (overrides: Partial<ListOptions>): ListOptions => ({ predicate: EVERYTHING, ...overrides });

  it.each<[string, Partial<ListOptions>, unknown]>([
    ['rv unset: Most Recent', {}, { kind: 'consistent' }],
    ['rv unset with limit: Most Recent', { limit: 5 }, { kind: 'consistent' }],
    ['rv 0: Any', { resourceVersion: '0' }, { kind: 'any' }],
    ['rv 0 with limit: Any', { resourceVersion: '0', limit: 5 }, { kind: 'any' }],
    ['rv N: Not older than', { resourceVersion: '7' }, { kind: 'notOlderThan', revision: 7 }],
    ['rv N with limit: Exact', { resourceVersion: '7', limit: 5 }, { kind: 'exact', revision: 7 }],
    ['Exact', { resourceVersion: '7', resourceVersionMatch: 'Exact' }, { kind: 'exact', revision: 7 }],
    [
      'Exact with limit',
      { resourceVersion: '7', resourceVersionMatch: 'Exact', limit: 5 },
      { kind: 'exact', revision: 7 },
    ],
    [
      'NotOlderThan',
      { resourceVersion: '7', resourceVersionMatch: 'NotOlderThan' },
      { kind: 'notOlderThan', revision: 7 },
    ],
    [
      'NotOlderThan with limit',
      { resourceVersion: '7', resourceVersionMatch: 'NotOlderThan', limit: 5 },
      { kind: 'notOlderThan', revision: 7 },
    ],
    ['NotOlderThan 0: Any', { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }, { kind: 'any' }],
    ['continue', { continue: token, limit: 5 }, { kind: 'continue', revision: 9, startKey: `${prefix}b\u0000` }],
    [
      'continue with rv 0',
      { continue: token, resourceVersion: '0', limit: 5 },
      { kind: 'continue', revision: 9, startKey: `${prefix}b\u0000` },
    ],
  ])('%s', (_case, overrides, expected) => {
    expect(interpretListOptions(options(overrides), prefix)).toEqual(expected);
  });

  it.each<[string, Partial<ListOptions>, string]>([
    [
      'continue with rv N',
      { continue: token, resourceVersion: '7' },
      'specifying resource version is not allowed when using continue',
    ],
    [
      'Exact without rv',
      { resourceVersionMatch: 'Exact' },
      'resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'NotOlderThan without rv',
      { resourceVersionMatch: 'NotOlderThan' },
      'resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'match with continue',
      { continue: token, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' },
      'resourceVersionMatch is forbidden when continue is provided',
    ],
    [
      'Exact 0',
      { resourceVersion: '0', resourceVersionMatch: 'Exact' },
      'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    [
      'bad rv',
      { resourceVersion: 'x1' },
      'invalid resource version: resourceVersion: Invalid value: "x1": strconv.ParseUint: parsing "x1": invalid syntax',
    ],
    [
      'bad token',
      { continue: 'a' },
      'invalid continue token: continue key is not valid: illegal base64 data at input byte 0',
    ],
  ])('rejects %s', (_case, overrides, message) => {
    const error = errorOf(() => interpretListOptions(options(overrides), prefix));
    expect(error.reason).toBe('BadRequest');
    expect(error.message).toBe(message);
  });
});
