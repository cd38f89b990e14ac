/**
 * `kubectl explain` prints the reference's field descriptions. They are not in the project: the
 * test run takes them from the API's Go modules (tools/descriptions) before the tests start, and
 * the OpenAPI documents carry them.
 */
import { startServer, type TestServer } from '../helpers/server';

describe('kubectl explain', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('describes a field, and an object with its fields', async () => {
    const replicas = await server.kubectl(['explain', 'deployment.spec.replicas']);
    expect(replicas.code).toBe(0);
    expect(replicas.stdout).toContain('FIELD: replicas <integer>');
    expect(replicas.stdout).toMatch(/DESCRIPTION:\s+Number of desired pods\./);

    const metadata = await server.kubectl(['explain', 'configmap.metadata']);
    expect(metadata.code).toBe(0);
    expect(metadata.stdout).toMatch(/DESCRIPTION:\s+Standard object's metadata\./);
    expect(metadata.stdout).toMatch(/labels\s+<map\[string\]string>\s+Map of string keys and values/);
  });
});
