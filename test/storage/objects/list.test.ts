/** Lists over both real backends: paging at one revision, selectors, exact reads and 410s after compaction. */
import { ObjectError } from '../../../storage/errors';
import { decodeContinueToken } from '../../../storage/objects/continue-token';
import { CONTINUE_EXPIRED_MESSAGE, LIST_EXPIRED_MESSAGE, ResourceStore } from '../../../storage/objects/resource-store';
import { EVERYTHING, ListOptions, ListResult, Predicate } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, RunningBackend } from './backends';

import { KubeObject } from '../../../api/objects';
async function objectError(promise: Promise<unknown>): Promise<ObjectError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ObjectError) return error;
    throw error;
  }
  throw new Error('expected an ObjectError');
}

const keyOf = (object: KubeObject): string => `${object.metadata.namespace}/${object.metadata.name}`;
const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
const labelled = (key: string, value: string): Predicate => ({
  everything: false,
  matches: (object) => object.metadata.labels?.[key] === value,
});

/**
 * Every page of a list from `options.continue` (or the start) on, following continue tokens;
 * bounded so a broken token cannot loop forever.
 */
async function allPages(resources: ResourceStore, options: ListOptions, maxPages = 100): Promise<ListResult[]> {
  const pages: ListResult[] = [];
  let token = options.continue;
  do {
    const page = await resources.list({}, { ...options, continue: token });
    pages.push(page);
    token = page.continue;
  } while (token !== undefined && pages.length < maxPages);
  return pages;
}

describe.each(BACKENDS)('ResourceStore lists on $name', (backend) => {
  let running: RunningBackend;
  let store: RevisionedStore;

  beforeAll(async () => {
    running = await backend.start();
    store = await running.connect();
  });
  afterAll(() => running.stop());

  const newResources = (): ResourceStore =>
    new ResourceStore({
      store,
      keyPrefix: freshPrefix('pods'),
      qualifiedResource: { group: '', resource: 'pods' },
      namespaced: true,
    });

  /**
   * Creates pods number `from` to `from + count - 1` over two namespaces, in a scrambled order;
   * returns their keys in store order.
   */
  async function createPods(
    resources: ResourceStore,
    batch: { count: number; from?: number; labels?: (i: number) => Record<string, string> },
  ) {
    const specs = Array.from({ length: batch.count }, (_, offset) => {
      const i = (batch.from ?? 0) + offset;
      return {
        namespace: i % 2 === 0 ? 'ns-a' : 'ns-b',
        name: `p-${String(i).padStart(3, '0')}`,
        labels: batch.labels?.(i) ?? {},
      };
    });
    const scrambled = [...specs].sort((a, b) =>
      a.name.split('').reverse().join('') < b.name.split('').reverse().join('') ? -1 : 1,
    );
    for (let start = 0; start < scrambled.length; start += 50) {
      await Promise.all(
        scrambled.slice(start, start + 50).map((spec) =>
          resources.create(spec, {
            kind: 'Pod',
            metadata: { name: spec.name, namespace: spec.namespace, labels: spec.labels },
          }),
        ),
      );
    }
    return specs.map((spec) => `${spec.namespace}/${spec.name}`).sort(byteOrder);
  }

  it('pages 400 objects with limit 17 in key order, all at one revision', async () => {
    const resources = newResources();
    const expectedKeys = await createPods(resources, { count: 400 });

    const first = await resources.list({}, { predicate: EVERYTHING, limit: 17 });
    // Writes after the first page must not show in later pages: they all read the first page's revision.
    await resources.create(
      { namespace: 'ns-a', name: 'zz-late' },
      { metadata: { name: 'zz-late', namespace: 'ns-a' } },
    );
    await resources.update({ namespace: 'ns-b', name: 'p-399' }, (current) => ({
      ...(current as KubeObject),
      changed: true,
    }));

    const pages = [
      first,
      ...(await allPages(resources, { predicate: EVERYTHING, limit: 17, continue: first.continue }, 40)),
    ];

    expect(pages).toHaveLength(Math.ceil(400 / 17));
    expect(pages.flatMap((page) => page.items.map(keyOf))).toEqual(expectedKeys);
    expect(new Set(pages.map((page) => page.resourceVersion))).toEqual(new Set([first.resourceVersion]));
    expect(pages.flatMap((page) => page.items).some((item) => 'changed' in item)).toBe(false);
    let seen = 0;
    for (const [index, page] of pages.entries()) {
      seen += page.items.length;
      if (index < pages.length - 1) {
        expect(page.items).toHaveLength(17);
        expect(page.remainingItemCount).toBe(400 - seen);
        expect(page.continue).toBeDefined();
      } else {
        expect(page.items).toHaveLength(400 % 17);
        expect(page.remainingItemCount).toBeUndefined();
        expect(page.continue).toBeUndefined();
      }
    }

    const namespaceOnly = await resources.list({ namespace: 'ns-a' }, { predicate: EVERYTHING });
    expect(namespaceOnly.items.map(keyOf)).toEqual([
      ...expectedKeys.filter((key) => key.startsWith('ns-a/')),
      'ns-a/zz-late',
    ]);
    expect(namespaceOnly.continue).toBeUndefined();
  });

  it('pages with a selector until the limit is filled, without a remaining count', async () => {
    const resources = newResources();
    const keys = await createPods(resources, { count: 60, labels: (i) => ({ tier: i % 5 === 0 ? 'gold' : 'plain' }) });
    const gold = keys.filter((key) => Number(key.split('-')[2]) % 5 === 0);

    const pages = await allPages(resources, { predicate: labelled('tier', 'gold'), limit: 5 });
    expect(pages.flatMap((page) => page.items.map(keyOf))).toEqual(gold);
    expect(pages.map((page) => page.items.length)).toEqual([5, 5, 2]);
    expect(pages.every((page) => page.remainingItemCount === undefined)).toBe(true);
    expect(new Set(pages.map((page) => page.resourceVersion)).size).toBe(1);
    // The token resumes just after the last key examined, which filled the page.
    const lastOfFirst = pages[0].items[4];
    const position = decodeContinueToken(pages[0].continue as string, '');
    expect(position.startKey).toBe(`${keyOf(lastOfFirst)}\u0000`);

    const none = await resources.list({}, { predicate: labelled('tier', 'none'), limit: 5 });
    expect(none.items).toEqual([]);
    expect(none.continue).toBeUndefined();
  });

  it('reads most recent, any, not older than, and exact states', async () => {
    const resources = newResources();
    await createPods(resources, { count: 3 });
    const threeAt = await store.currentRevision();
    await createPods(resources, { count: 2, from: 3 });
    const current = await store.currentRevision();

    for (const resourceVersion of [undefined, '0', String(threeAt)]) {
      const list = await resources.list({}, { predicate: EVERYTHING, resourceVersion });
      expect([list.items.length, list.resourceVersion]).toEqual([5, String(current)]);
    }
    const exact = await resources.list(
      {},
      { predicate: EVERYTHING, resourceVersion: String(threeAt), resourceVersionMatch: 'Exact' },
    );
    expect([exact.items.length, exact.resourceVersion]).toEqual([3, String(threeAt)]);
    // A limit with a resourceVersion and no match means Exact.
    const legacyExact = await resources.list({}, { predicate: EVERYTHING, resourceVersion: String(threeAt), limit: 2 });
    expect([legacyExact.items.length, legacyExact.resourceVersion, legacyExact.remainingItemCount]).toEqual([
      2,
      String(threeAt),
      1,
    ]);

    for (const options of [
      { resourceVersion: String(current + 50) },
      { resourceVersion: String(current + 50), resourceVersionMatch: 'Exact' as const },
      { resourceVersion: String(current + 50), resourceVersionMatch: 'NotOlderThan' as const, limit: 2 },
    ]) {
      const tooLarge = await objectError(resources.list({}, { predicate: EVERYTHING, ...options }));
      expect(tooLarge.reason).toBe('TooLargeResourceVersion');
      expect(tooLarge.message).toMatch(
        new RegExp(`^Timeout: Too large resource version: ${current + 50}, current: \\d+$`),
      );
    }

    const badRequest = await objectError(
      resources.list({}, { predicate: EVERYTHING, resourceVersion: '5', continue: 'x' }),
    );
    expect([badRequest.reason, badRequest.message]).toEqual([
      'BadRequest',
      'specifying resource version is not allowed when using continue',
    ]);
  });

  it('answers 410 for compacted revisions, with a token that resumes at the newest one', async () => {
    const resources = newResources();
    const keys = await createPods(resources, { count: 10 });
    const firstPage = await resources.list({}, { predicate: EVERYTHING, limit: 4 });
    await resources.create(
      { namespace: 'ns-b', name: 'zz-late' },
      { metadata: { name: 'zz-late', namespace: 'ns-b' } },
    );
    await resources.delete({ namespace: 'ns-a', name: 'p-008' });
    await store.compact(await store.currentRevision());

    const exact = await objectError(
      resources.list(
        {},
        { predicate: EVERYTHING, resourceVersion: firstPage.resourceVersion, resourceVersionMatch: 'Exact' },
      ),
    );
    expect([exact.reason, exact.message]).toEqual(['Expired', LIST_EXPIRED_MESSAGE]);

    const expired = await objectError(
      resources.list({}, { predicate: EVERYTHING, limit: 4, continue: firstPage.continue }),
    );
    expect([expired.reason, expired.message]).toEqual(['Expired', CONTINUE_EXPIRED_MESSAGE]);
    const newToken = expired.details.continueToken as string;
    const oldPosition = decodeContinueToken(firstPage.continue as string, '');
    expect(decodeContinueToken(newToken, '')).toEqual({ revision: -1, startKey: oldPosition.startKey });

    // The inconsistent remainder: read at the newest revision, which later pages then keep.
    const rest = await allPages(resources, { predicate: EVERYTHING, limit: 4, continue: newToken }, 10);
    const current = String(await store.currentRevision());
    expect(rest.map((page) => page.resourceVersion)).toEqual(rest.map(() => current));
    expect(rest.flatMap((page) => page.items.map(keyOf))).toEqual(
      [...keys.slice(4).filter((key) => key !== 'ns-a/p-008'), 'ns-b/zz-late'].sort(byteOrder),
    );
  });

  it('refuses a malformed continue token', async () => {
    const invalid = await objectError(newResources().list({}, { predicate: EVERYTHING, limit: 4, continue: 'bm9wZQ' }));
    expect(invalid.reason).toBe('BadRequest');
    expect(invalid.message).toMatch(/^invalid continue token: continue key is not valid: /);
  });
});
