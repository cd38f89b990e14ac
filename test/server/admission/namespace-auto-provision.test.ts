/**
 * NamespaceAutoProvision against a real server: a create in a namespace that does not exist
 * creates it, as kube-apiserver v1.34.4 does (written by kube-apiserver, as its loopback client
 * writes it); a dry run creates nothing and is refused by NamespaceLifecycle as the reference
 * refuses it.
 */
import { startServer, type TestServer } from '../../helpers/server';

const json = { 'content-type': 'application/json' };

describe('NamespaceAutoProvision', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ flags: ['--enable-admission-plugins=NamespaceAutoProvision'] });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const configMap = (name: string) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });

  it('creates the namespace of a create, which then holds the object', async () => {
    const created = await server.request('POST', '/api/v1/namespaces/provisioned/configmaps', {
      body: configMap('c'),
      headers: json,
    });
    expect(created.status).toBe(201);
    const namespace = await server.request('GET', '/api/v1/namespaces/provisioned');
    expect(namespace.status).toBe(200);
    expect(namespace.json()).toMatchObject({
      metadata: {
        name: 'provisioned',
        labels: { 'kubernetes.io/metadata.name': 'provisioned' },
        managedFields: [{ manager: 'kube-apiserver', operation: 'Update', apiVersion: 'v1' }],
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
    const stored = await server.request('GET', '/api/v1/namespaces/provisioned/configmaps/c');
    expect(stored.json()).toMatchObject({ data: { a: 'b' } });
    // A second create finds the namespace and leaves it as it is.
    const uid = (namespace.json() as { metadata: { uid: string } }).metadata.uid;
    expect(
      (
        await server.request('POST', '/api/v1/namespaces/provisioned/configmaps', {
          body: configMap('d'),
          headers: json,
        })
      ).status,
    ).toBe(201);
    expect((await server.request('GET', '/api/v1/namespaces/provisioned')).json()).toMatchObject({
      metadata: { uid },
    });
  });

  it('a dry run creates no namespace, and is refused for the missing one', async () => {
    const refused = await server.request('POST', '/api/v1/namespaces/dry/configmaps?dryRun=All', {
      body: configMap('c'),
      headers: json,
    });
    expect(refused.status).toBe(404);
    expect(refused.json()).toMatchObject({ reason: 'NotFound', message: 'namespaces "dry" not found' });
    expect((await server.request('GET', '/api/v1/namespaces/dry')).status).toBe(404);
  });

  it('an update or delete in a missing namespace creates none', async () => {
    const updated = await server.request('PUT', '/api/v1/namespaces/elsewhere/configmaps/c', {
      body: configMap('c'),
      headers: json,
    });
    expect(updated.status).toBe(404);
    const deleted = await server.request('DELETE', '/api/v1/namespaces/elsewhere/configmaps/c');
    expect(deleted.status).toBe(404);
    expect((await server.request('GET', '/api/v1/namespaces/elsewhere')).status).toBe(404);
  });
});
