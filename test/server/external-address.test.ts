/**
 * The address this server gives out for itself, the reference's external address: the OpenID
 * discovery document's jwks_uri and `/api`'s serverAddressByClientCIDRs name
 * `--external-hostname`, else `--advertise-address`, with the secure port unless the flag
 * names one, whatever address the request came to.
 */
import { startServer, type TestServer } from '../helpers/server';

interface Addresses {
  jwksUri: string;
  serverAddress: string;
}

async function addressesOf(server: TestServer): Promise<Addresses> {
  const configuration = (await server.request('GET', '/.well-known/openid-configuration')).json<{ jwks_uri: string }>();
  const versions = (await server.request('GET', '/api')).json<{
    serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
  }>();
  expect(versions.serverAddressByClientCIDRs).toHaveLength(1);
  expect(versions.serverAddressByClientCIDRs[0].clientCIDR).toBe('0.0.0.0/0');
  return { jwksUri: configuration.jwks_uri, serverAddress: versions.serverAddressByClientCIDRs[0].serverAddress };
}

describe("the server's external address", () => {
  let advertised: TestServer;
  let named: TestServer;
  let namedWithPort: TestServer;
  beforeAll(async () => {
    [advertised, named, namedWithPort] = await Promise.all([
      startServer({ flags: ['--advertise-address=127.0.0.42'] }),
      startServer({ flags: ['--advertise-address=127.0.0.42', '--external-hostname=api.example.test'] }),
      startServer({ flags: ['--external-hostname=api.example.test:8443'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([advertised?.stop(), named?.stop(), namedWithPort?.stop()]);
  });

  it('is the advertise address and the secure port', async () => {
    const port = new URL(advertised.url).port;
    expect(await addressesOf(advertised)).toEqual({
      jwksUri: `https://127.0.0.42:${port}/openid/v1/jwks`,
      serverAddress: `127.0.0.42:${port}`,
    });
  });

  it('is --external-hostname when it is set, with the secure port', async () => {
    const port = new URL(named.url).port;
    expect(await addressesOf(named)).toEqual({
      jwksUri: `https://api.example.test:${port}/openid/v1/jwks`,
      serverAddress: `api.example.test:${port}`,
    });
  });

  it('keeps the port --external-hostname names', async () => {
    expect(await addressesOf(namedWithPort)).toEqual({
      jwksUri: 'https://api.example.test:8443/openid/v1/jwks',
      serverAddress: 'api.example.test:8443',
    });
  });
});
