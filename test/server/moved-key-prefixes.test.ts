/** A store an older capstan wrote keeps its CRDs and APIServices, moved to the reference's keys. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { moveOldKeyPrefixes } from '../../server/moved-key-prefixes';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../storage/store';

describe('moving the old key prefixes', () => {
  let dir: string;
  let store: RevisionedStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'moved-keys-'));
    store = await openSqliteStore({ path: join(dir, 'store.db') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('objects under the old prefixes move, whatever else is stored stays', async () => {
    await store.create('/registry/customresourcedefinitions/widgets.example.com', Buffer.from('crd'));
    await store.create('/registry/apiservices/v1.example.com', Buffer.from('apiservice'));
    await store.create('/registry/apiservicesx/other', Buffer.from('other'));
    // Already moved by another replica: the one at the new key wins, the old one goes.
    await store.create(
      '/registry/apiextensions.k8s.io/customresourcedefinitions/things.example.com',
      Buffer.from('new'),
    );
    await store.create('/registry/customresourcedefinitions/things.example.com', Buffer.from('old'));

    expect(await moveOldKeyPrefixes(store, '/registry/')).toBe(3);
    const { kvs } = await store.range({ prefix: '/registry/' });
    expect(Object.fromEntries(kvs.map((kv) => [kv.key, kv.value.toString()]))).toEqual({
      '/registry/apiextensions.k8s.io/customresourcedefinitions/things.example.com': 'new',
      '/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com': 'crd',
      '/registry/apiregistration.k8s.io/apiservices/v1.example.com': 'apiservice',
      '/registry/apiservicesx/other': 'other',
    });
    expect(await moveOldKeyPrefixes(store, '/registry')).toBe(0);
  });
});
