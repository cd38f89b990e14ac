/**
 * The `default/kubernetes` Service as the reference's kubernetes-service controller keeps it:
 * made again within its 10 s interval when deleted, and of type NodePort on
 * `--kubernetes-service-node-port` when that is set, which must lie in `--service-node-port-range`.
 */
import { FlagError, parseFlags } from '../../../server/config/flags';
import { retryUntil } from '../../helpers/wait-for';
import { startServer, type TestServer } from '../../helpers/server';

const SERVICE = '/api/v1/namespaces/default/services/kubernetes';

interface Service {
  metadata: { uid: string };
  spec: { type: string; clusterIP: string; ports: { name: string; port: number; nodePort?: number }[] };
}

describe('the kubernetes Service', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ flags: ['--kubernetes-service-node-port=30443'] });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is of type NodePort on the flag’s port, which is taken from the range', async () => {
    const service = (await server.request('GET', SERVICE)).json<Service>();
    expect(service.spec.type).toBe('NodePort');
    expect(service.spec.ports).toMatchObject([{ name: 'https', port: 443, nodePort: 30443 }]);
    const taken = await server.request('POST', '/api/v1/namespaces/default/services', {
      body: JSON.stringify({
        metadata: { name: 'wants-30443' },
        spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30443 }] },
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(taken.status).toBe(422);
    expect(taken.body).toContain('provided port is already allocated');
  });

  it('is made again, with its address and port, after it is deleted', async () => {
    const before = (await server.request('GET', SERVICE)).json<Service>();
    expect((await server.request('DELETE', SERVICE)).status).toBe(200);
    const again = await retryUntil(
      () => server.request('GET', SERVICE),
      (reply) => reply.status === 200,
      15_000,
    );
    const after = again.json<Service>();
    expect(after.metadata.uid).not.toBe(before.metadata.uid);
    expect(after.spec.clusterIP).toBe(before.spec.clusterIP);
    expect(after.spec.ports).toMatchObject([{ port: 443, nodePort: 30443 }]);
  }, 30_000);
});

describe('--kubernetes-service-node-port', () => {
  it('is 0 by default: a ClusterIP Service', () => {
    const parsed = parseFlags([]);
    expect('options' in parsed && parsed.options.kubernetesServiceNodePort).toBe(0);
  });

  it.each([
    [['--kubernetes-service-node-port=8443'], "kubernetes service node port range 30000-32767 doesn't contain 8443"],
    [
      ['--kubernetes-service-node-port=70000'],
      "[--kubernetes-service-node-port 70000 must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP, kubernetes service node port range 30000-32767 doesn't contain 70000]",
    ],
    [['--kubernetes-service-node-port=x'], 'invalid argument "x" for "--kubernetes-service-node-port" flag'],
  ])('%j is refused in the reference’s words', (flags, message) => {
    expect(() => parseFlags(flags)).toThrow(FlagError);
    expect(() => parseFlags(flags)).toThrow(message);
  });

  it('is taken in any base pflag reads, and inside a range of its own', () => {
    const parsed = parseFlags(['--service-node-port-range=8000-9000', '--kubernetes-service-node-port=0x2000']);
    expect('options' in parsed && parsed.options.kubernetesServiceNodePort).toBe(8192);
  });
});
