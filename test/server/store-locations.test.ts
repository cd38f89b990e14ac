/** How the etcd TLS flags become the client's transport, and how TLS failures read. */
import { FlagError } from '../../server/config/flags';
import { etcdTransport, explainTlsFailure } from '../../server/store-locations';

const TLS = { ca: Buffer.from('ca'), cert: Buffer.from('cert'), key: Buffer.from('key') };

describe('etcdTransport', () => {
  test('https URLs use the TLS files; http URLs ignore them, as the reference client picks by scheme', () => {
    expect(etcdTransport(['https://127.0.0.1:2379', 'https://10.0.0.2:2379'], TLS)).toEqual({ tls: TLS });
    expect(etcdTransport(['http://127.0.0.1:2379'], TLS)).toEqual({});
    // https with no files: the system's roots verify the server.
    expect(etcdTransport(['https://etcd.example:2379'], {})).toEqual({ tls: {} });
  });

  test('a mix of schemes is refused at start', () => {
    expect(() => etcdTransport(['https://a:2379', 'http://b:2379'], TLS)).toThrow(
      new FlagError('etcd servers https://a:2379,http://b:2379 mix http and https URLs; use one scheme'),
    );
  });
});

describe('explainTlsFailure', () => {
  test.each([
    [
      '14 UNAVAILABLE: No connection established. Last error: 401DE9127A7F0000:error:0A000412:SSL routines:ssl3_read_bytes:ssl/tls alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 42',
      'etcd refused the TLS handshake (alert bad certificate): it wants a client certificate signed by its --trusted-ca-file (--etcd-certfile, --etcd-keyfile)',
    ],
    [
      '14 UNAVAILABLE: No connection established. Last error: Error: unable to verify the first certificate; if the root CA is installed locally, try running Node.js with --use-system-ca.',
      "etcd's serving certificate is not trusted (unable to verify the first certificate): --etcd-cafile must hold the CA that signed it, for the address of the URL",
    ],
    [
      "14 UNAVAILABLE: No connection established. Last error: Error [ERR_TLS_CERT_ALTNAME_INVALID]: Hostname/IP does not match certificate's altnames: IP: 127.0.0.2 is not in the cert's list: 127.0.0.1",
      "etcd's serving certificate is not trusted (Hostname/IP does not match certificate's altnames: IP: 127.0.0.2 is not in the cert's list: 127.0.0.1): --etcd-cafile must hold the CA that signed it, for the address of the URL",
    ],
  ])('%s', (message, explained) => {
    expect(explainTlsFailure(message)).toEqual(explained);
  });

  test('other failures keep their own words', () => {
    expect(
      explainTlsFailure('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379'),
    ).toBeUndefined();
  });
});
