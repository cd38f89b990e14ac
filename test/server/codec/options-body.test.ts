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

  test('CBOR with the gate becomes JSON; without it the body is left for the JSON reader to reject', () => {
    const body = encodeCbor(deleteOptions);
    const json = optionsBodyAsJson({
      req: request('application/cbor'),
      body,
      settings: { cbor: true, compression: true },
    });
    expect(JSON.parse(json.toString())).toMatchObject({ propagationPolicy: 'Foreground' });
    expect(
      optionsBodyAsJson({ req: request('application/cbor'), body, settings: { cbor: false, compression: true } }),
    ).toBe(body);
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
