import { encode as cborXEncode } from 'cbor-x';
import {
  decodeCbor,
  decodeCborBody,
  decodeCborSequence,
  encodeCbor,
  SELF_DESCRIBED_CBOR,
} from '../../../server/codec/cbor';
import { StatusError } from '../../../server/status/status-error';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, resourceVersion: '12', generation: 1 },
  spec: {
    containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }],
    terminationGracePeriodSeconds: 30,
    hostNetwork: false,
  },
  status: { phase: 'Pending', podIP: null, ratio: 0.25, negative: -5, big: 2 ** 40, text: 'héllo ✓' },
};

describe('CBOR as the reference writes it', () => {
  it('prefixes the self-described tag 55799 and round-trips a JSON object', () => {
    const bytes = encodeCbor(pod);
    expect(bytes.subarray(0, 3)).toEqual(SELF_DESCRIBED_CBOR);
    expect(decodeCbor(bytes)).toEqual(pod);
  });

  it('writes strings and map keys as byte strings (major type 2)', () => {
    const bytes = encodeCbor({ a: 'b' });
    // tag 55799, map(1), bytes(1) "a", bytes(1) "b"
    expect([...bytes]).toEqual([0xd9, 0xd9, 0xf7, 0xa1, 0x41, 0x61, 0x41, 0x62]);
  });

  it('reads text strings and byte strings alike, and what other encoders write', () => {
    const fromCborX = cborXEncode({ kind: 'ConfigMap', data: { k: 'v' }, list: [1, -2, 1.5, true, null] });
    expect(decodeCbor(fromCborX)).toEqual({ kind: 'ConfigMap', data: { k: 'v' }, list: [1, -2, 1.5, true, null] });
  });

  it('turns byte strings tagged 22/21/23 (Go []byte fields) into base64/base64url/base16 text', () => {
    // map(1) text "d" tag(22) bytes(2) 0xfb 0xff
    expect(decodeCbor(Uint8Array.from([0xa1, 0x61, 0x64, 0xd6, 0x42, 0xfb, 0xff]))).toEqual({ d: '+/8=' });
    expect(decodeCbor(Uint8Array.from([0xd5, 0x42, 0xfb, 0xff]))).toBe('-_8');
    expect(decodeCbor(Uint8Array.from([0xd7, 0x42, 0xfb, 0xff]))).toBe('fbff');
  });

  it('reads indefinite-length strings, arrays and maps, and half-precision floats', () => {
    // map(_) "a": [_ 1, 2], "b": (_ "x" "y"), "c": 1.5 (half) break
    const bytes = Uint8Array.from([
      0xbf, 0x61, 0x61, 0x9f, 0x01, 0x02, 0xff, 0x61, 0x62, 0x7f, 0x61, 0x78, 0x61, 0x79, 0xff, 0x61, 0x63, 0xf9, 0x3e,
      0x00, 0xff,
    ]);
    expect(decodeCbor(bytes)).toEqual({ a: [1, 2], b: 'xy', c: 1.5 });
  });

  it('rejects duplicate map keys with the reference message, even when one is a byte string', () => {
    // map(2) text "a" 1, bytes "a" 2
    const bytes = Uint8Array.from([0xa2, 0x61, 0x61, 0x01, 0x41, 0x61, 0x02]);
    expect(() => decodeCbor(bytes)).toThrow('cbor: found duplicate map key "a" at map element index 1');
  });

  it('rejects invalid UTF-8 text, NaN, trailing data and deep nesting', () => {
    expect(() => decodeCbor(Uint8Array.from([0x62, 0xc3, 0x28]))).toThrow('cbor: invalid UTF-8 string');
    expect(() => decodeCbor(Uint8Array.from([0xf9, 0x7e, 0x00]))).toThrow('NaN');
    expect(() => decodeCbor(Uint8Array.from([0x01, 0x02]))).toThrow('extraneous data');
    expect(() => decodeCbor(Uint8Array.from([...Array(70).fill(0x81), 0x01]))).toThrow(
      'cbor: exceeded max nested level 64',
    );
    expect(() => decodeCbor(Uint8Array.from([0x82, 0x01]))).toThrow('unexpected EOF');
  });

  it('answers a bad body with a 400 Status', () => {
    let caught: unknown;
    try {
      decodeCborBody(Uint8Array.from([0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StatusError);
    expect((caught as StatusError).status).toMatchObject({ code: 400, reason: 'BadRequest' });
  });

  it('reads a CBOR sequence of watch events', () => {
    const stream = Buffer.concat([
      encodeCbor({ type: 'ADDED', object: pod }),
      encodeCbor({ type: 'DELETED', object: pod }),
    ]);
    expect(decodeCborSequence(stream).map((event) => (event as { type: string }).type)).toEqual(['ADDED', 'DELETED']);
  });
});
