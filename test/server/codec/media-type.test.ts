import {
  negotiateOutput,
  parseAccept,
  requestBodyFormat,
  serializersFor,
  wantsPretty,
  NO_TRANSFORMS,
  type EndpointRestrictions,
} from '../../../server/codec/media-type';
import { StatusError } from '../../../server/status/status-error';

const builtin = serializersFor({ protobuf: true, cbor: false });
const custom = serializersFor({ protobuf: false, cbor: false });
const resource: EndpointRestrictions = { table: true, metadata: true };
const review: EndpointRestrictions = { table: false, metadata: true };

function choose(
  accept: string | undefined,
  options: { restrictions?: EndpointRestrictions; watch?: boolean; serializers?: typeof builtin } = {},
) {
  return negotiateOutput({
    accept,
    serializers: options.serializers ?? builtin,
    restrictions: options.restrictions ?? resource,
    watch: options.watch,
  });
}

function statusOf(run: () => unknown): { code: number; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof StatusError) return { code: error.status.code, message: error.status.message };
    throw error;
  }
  throw new Error('no error');
}

describe('Accept parsing', () => {
  test('orders by weight, then concrete before wildcard, then by parameter count; keeps q=0 last, as the reference does', () => {
    const ranges = parseAccept(
      '*/*;q=0.5, application/*, application/json;q=0, application/yaml;q=0.9, application/json;as=Table;g=meta.k8s.io;v=v1',
    );
    expect(ranges.map((range) => `${range.type}/${range.subtype}${range.parameters.as ? ';as' : ''}`)).toEqual([
      'application/json;as',
      'application/*',
      'application/yaml',
      '*/*',
      'application/json',
    ]);
  });

  test('a weight that does not parse counts as 0', () => {
    expect(parseAccept('application/json;q=abc').map((range) => range.quality)).toEqual([0]);
  });
  test('an absent header is */*', () => {
    expect(parseAccept(undefined)).toEqual([{ type: '*', subtype: '*', parameters: {}, quality: 1 }]);
  });
});

describe('output negotiation', () => {
  test.each([
    ['no Accept → JSON', undefined, 'json', undefined],
    ['wildcard */* → JSON', '*/*', 'json', undefined],
    ['application/* → JSON', 'application/*', 'json', undefined],
    ['YAML', 'application/yaml', 'yaml', undefined],
    ['protobuf then JSON → protobuf', 'application/vnd.kubernetes.protobuf, application/json', 'protobuf', undefined],
    [
      'kubectl get → Table v1',
      'application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json',
      'json',
      'Table',
    ],
    ['Table v1beta1', 'application/json;as=Table;v=v1beta1;g=meta.k8s.io', 'json', 'Table'],
    [
      'Table in protobuf falls back to the next clause',
      'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json',
      'json',
      undefined,
    ],
    [
      'metadata in protobuf',
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      'protobuf',
      'PartialObjectMetadataList',
    ],
    ['q=0 excludes a type', 'application/vnd.kubernetes.protobuf;q=0, application/json;q=0.5', 'json', undefined],
    ['higher q wins over order', 'application/json;q=0.5, application/yaml', 'yaml', undefined],
    ['unknown type then JSON', 'text/html, application/json', 'json', undefined],
    [
      'an unknown kind in as= is not a transform we do',
      'application/json;as=Foo;g=meta.k8s.io;v=v1, application/yaml',
      'yaml',
      undefined,
    ],
  ])('%s', (_name, accept, format, kind) => {
    const chosen = choose(accept);
    expect(chosen.serializer.format).toBe(format);
    expect(chosen.transform?.kind).toBe(kind);
  });

  test('unknown type only → 406 listing the served types', () => {
    expect(statusOf(() => choose('text/html'))).toEqual({
      code: 406,
      message:
        'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });

  test('only a Table for a review → 406', () => {
    expect(statusOf(() => choose('application/json;as=Table;v=v1;g=meta.k8s.io', { restrictions: review })).code).toBe(
      406,
    );
  });

  test('a Table for a review with a JSON fallback → JSON', () => {
    expect(
      choose('application/json;as=Table;v=v1;g=meta.k8s.io, application/json;q=0.1', { restrictions: review })
        .transform,
    ).toBeUndefined();
  });

  test('errors take no transforms: a Table-asking client gets the JSON fallback', () => {
    expect(
      choose('application/json;as=Table;v=v1;g=meta.k8s.io, application/json', { restrictions: NO_TRANSFORMS })
        .transform,
    ).toBeUndefined();
  });

  test('protobuf for a custom resource → 406 listing JSON and YAML', () => {
    expect(statusOf(() => choose('application/vnd.kubernetes.protobuf', { serializers: custom }))).toEqual({
      code: 406,
      message: 'only the following media types are accepted: application/json, application/yaml',
    });
  });

  test('a watch in YAML → 406 listing the stream types', () => {
    expect(statusOf(() => choose('application/yaml', { watch: true })).message).toBe(
      'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    );
  });

  test('stream=watch is accepted for streaming formats only', () => {
    expect(choose('application/vnd.kubernetes.protobuf;stream=watch', { watch: true }).serializer.format).toBe(
      'protobuf',
    );
    expect(choose('application/yaml;stream=watch, application/json').serializer.format).toBe('json');
  });

  test('CBOR only with the gate', () => {
    expect(statusOf(() => choose('application/cbor')).code).toBe(406);
    expect(
      choose('application/cbor', { serializers: serializersFor({ protobuf: true, cbor: true }) }).serializer.format,
    ).toBe('cbor');
  });
});

describe('pretty', () => {
  const plain = choose('application/json');
  test.each([
    ['pretty=true', 'pretty=true', undefined, true],
    ['pretty=1', 'pretty=1', undefined, true],
    ['pretty=false beats curl', 'pretty=false', 'curl/8.0', false],
    ['curl', '', 'curl/8.0', true],
    ['kubectl', '', 'kubectl/v1.33.0', false],
  ])('%s', (_name, query, userAgent, expected) => {
    expect(wantsPretty({ negotiated: plain, query: new URLSearchParams(query), userAgent })).toBe(expected);
  });
  test('pretty=1 in the media type', () => {
    expect(
      wantsPretty({
        negotiated: choose('application/json;pretty=1'),
        query: new URLSearchParams(),
        userAgent: undefined,
      }),
    ).toBe(true);
  });
});

describe('request bodies', () => {
  test.each([
    [undefined, 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['application/yaml', 'yaml'],
    ['application/vnd.kubernetes.protobuf', 'protobuf'],
  ])('%s → %s', (contentType, format) => {
    expect(requestBodyFormat({ contentType, serializers: builtin })).toBe(format);
  });
  test('anything else → 415', () => {
    expect(statusOf(() => requestBodyFormat({ contentType: 'text/plain', serializers: builtin }))).toEqual({
      code: 415,
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });
  test('protobuf for a custom resource → 415', () => {
    expect(
      statusOf(() => requestBodyFormat({ contentType: 'application/vnd.kubernetes.protobuf', serializers: custom }))
        .code,
    ).toBe(415);
  });
});
