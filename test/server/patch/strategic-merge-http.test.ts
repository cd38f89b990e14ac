/**
 * Strategic merge patch through the PATCH handler: a real registry, the generated schema data
 * and a SQLite store in a temp dir, over loopback HTTP.
 */
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

let testStore: TestStore;
let api: ServedApi;
let base: string;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor);
  base = api.base;
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

async function call(
  method: string,
  path: string,
  body: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(base + path, {
    method,
    headers: { 'content-type': contentType, 'user-agent': 'smp-test/v1' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

test('a strategic merge patch merges containers by name and env by name', async () => {
  const created = await call('POST', DEPLOYMENTS, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.27',
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
            },
            { name: 'side', image: 'busybox' },
          ],
        },
      },
    },
  });
  expect(created.status).toBe(201);
  const patched = await call(
    'PATCH',
    `${DEPLOYMENTS}/web`,
    {
      spec: {
        replicas: 3,
        template: {
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.28', env: [{ name: 'B', $patch: 'delete' }] }] },
        },
      },
    },
    'application/strategic-merge-patch+json',
  );
  expect(patched.status).toBe(200);
  expect(patched.body.spec.replicas).toBe(3);
  const containers = patched.body.spec.template.spec.containers as Array<Record<string, unknown>>;
  expect(containers.map((container) => [container.name, container.image, container.env])).toEqual([
    ['nginx', 'nginx:1.28', [{ name: 'A', value: '1' }]],
    ['side', 'busybox', undefined],
  ]);
});
