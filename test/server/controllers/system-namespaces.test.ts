/**
 * The system namespaces as the reference's system namespaces controller keeps them: made at
 * start, and made again at its next look when one is gone (a minute in the server; shorter here,
 * on the API's own write path over a real store).
 */
import { admissionChain } from '../../../server/admission/types';
import { builtinRegistry } from '../../../server/builtin-types';
import { apiOperations } from '../../../server/client/api-operations';
import { keepSystemNamespaces, SYSTEM_NAMESPACES } from '../../../server/controllers/bootstrap';
import { isNotFoundError } from '../../../storage/errors';
import { openTestStore, type TestStore } from '../../helpers/in-process-api';
import { waitUntil } from '../../helpers/wait-for';

const registry = builtinRegistry();
const namespaces = registry.find({ group: '', version: 'v1' }, 'namespaces')!;
let testStore: TestStore;
const stop = new AbortController();

beforeAll(async () => {
  testStore = await openTestStore();
});
afterAll(async () => {
  stop.abort();
  await testStore?.close();
});

async function exists(name: string): Promise<boolean> {
  return testStore
    .storageFor(namespaces)
    .get({ name })
    .then(
      () => true,
      (error: unknown) => {
        if (isNotFoundError(error)) return false;
        throw error;
      },
    );
}

it('are made at start and again when one is gone', async () => {
  const operations = apiOperations({
    context: { registry, now: () => new Date(), admission: admissionChain([]) },
    storageFor: (type) => testStore.storageFor(type),
  });
  await keepSystemNamespaces(operations, { intervalMs: 100, stop: stop.signal });
  for (const name of SYSTEM_NAMESPACES) expect(await exists(name)).toBe(true);
  const before = await testStore.storageFor(namespaces).get({ name: 'kube-node-lease' });
  // Gone as the namespace controller leaves it once its contents are deleted.
  await testStore.storageFor(namespaces).delete({ name: 'kube-node-lease' });
  expect(await exists('kube-node-lease')).toBe(false);
  await waitUntil('kube-node-lease is made again', () => exists('kube-node-lease'), 5_000, 50);
  const after = await testStore.storageFor(namespaces).get({ name: 'kube-node-lease' });
  expect(after.metadata.uid).not.toBe(before.metadata.uid);
  expect(after.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'kube-node-lease' });
});
