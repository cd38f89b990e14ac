import type { IncomingMessage } from 'node:http';
import { optionsBodyAsJson } from '../../../server/codec/options-body';
import { encodeCbor } from '../../../server/codec/cbor';
import { encodeEnvelope } from '../../../server/codec/protobuf-envelope';

function request(contentType: string | undefined): IncomingMessage {
  return { headers: contentType === undefined ? {} : { 'content-type': contentType } } as IncomingMessage;
}

const deleteOptions = {
  apiVersion: 'v1',
  kind: 'DeleteOptions',
  propagationPolicy: 'Foreground',
  preconditions: { uid: 'u-1' },
};

describe('DeleteOptions bodies in the client encoding', () => {
  test('protobuf (what client-go typed clients send in protobuf) becomes JSON', () => {
    const json = optionsBodyAsJson({
      req: request('application/vnd.kubernetes.protobuf'),
      body: encodeEnvelope(deleteOptions),
    });
    expect(JSON.parse(json.toString())).toMatchObject({
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u-1' },
    });
  });

  test('CBOR with the gate becomes JSON; without it the body is the reference’s 415', () => {
    const body = encodeCbor(deleteOptions);
    const json = optionsBodyAsJson({
      req: request('application/cbor'),
      body,
      settings: { cbor: true, compression: true },
    });
    expect(JSON.parse(json.toString())).toMatchObject({ propagationPolicy: 'Foreground' });
    expect(() =>
      optionsBodyAsJson({ req: request('application/cbor'), body, settings: { cbor: false, compression: true } }),
    ).toThrow(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  test('YAML becomes JSON; a `null` document stays null, which the delete reads as no options', () => {
    const yaml = Buffer.from('kind: DeleteOptions\npropagationPolicy: Foreground\n');
    expect(JSON.parse(optionsBodyAsJson({ req: request('application/yaml'), body: yaml }).toString())).toEqual({
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
    });
    expect(optionsBodyAsJson({ req: request('application/yaml'), body: Buffer.from('# none\n') }).toString()).toBe(
      'null',
    );
    expect(() => optionsBodyAsJson({ req: request('text/plain'), body: yaml })).toThrow('unknown format');
  });

  test('JSON, an absent Content-Type and an empty body pass through', () => {
    const body = Buffer.from('{"gracePeriodSeconds":0}');
    expect(optionsBodyAsJson({ req: request('application/json'), body })).toBe(body);
    expect(optionsBodyAsJson({ req: request(undefined), body })).toBe(body);
    expect(
      optionsBodyAsJson({ req: request('application/vnd.kubernetes.protobuf'), body: Buffer.alloc(0) }).length,
    ).toBe(0);
  });
});
