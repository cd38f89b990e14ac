/** ResourceStore over both real backends: writes, conflicts, reads at revisions and their errors. */
import { DeadlineExceededError, ObjectError } from '../../../storage/errors';
import { OPTIMISTIC_LOCK_MESSAGE, ResourceStore } from '../../../storage/objects/resource-store';
import type { KubeObject } from '../../../api/objects';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, RunningBackend } from './backends';

async function objectError(promise: Promise<unknown>): Promise<ObjectError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ObjectError) return error;
    throw error;
  }
  throw new Error('expected an ObjectError');
}

function pod(name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...extra },
    spec: { n: 0 },
  };
}

describe.each(BACKENDS)('ResourceStore on $name', (backend) => {
  let running: RunningBackend;
  let store: RevisionedStore;

  beforeAll(async () => {
    running = await backend.start();
    store = await running.connect();
  });
  afterAll(() => running.stop());

  const podsAt = (keyPrefix: string): ResourceStore =>
    new ResourceStore({ store, keyPrefix, qualifiedResource: { group: '', resource: 'pods' }, namespaced: true });
  const pods = (): ResourceStore => podsAt(freshPrefix('pods'));

  describe('create', () => {
    it('stores the object without its resourceVersion and answers with the write revision', async () => {
      const keyPrefix = freshPrefix('pods');
      const resources = podsAt(keyPrefix);
      const created = await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
      const stored = await store.get(`${keyPrefix}/ns/a`);
      expect(created.metadata.resourceVersion).toBe(String(stored.kv?.modRevision));
      expect(created.metadata.resourceVersion).toBe(String(await store.currentRevision()));
      expect(JSON.parse(String(stored.kv?.value)).metadata).not.toHaveProperty('resourceVersion');
      expect(await resources.get({ namespace: 'ns', name: 'a' })).toEqual(created);
    });

    it('refuses a set resourceVersion, an existing key, and bad names', async () => {
      const resources = pods();
      const invalid = await objectError(
        resources.create({ namespace: 'ns', name: 'a' }, pod('a', { resourceVersion: '5' })),
      );
      expect([invalid.reason, invalid.message]).toEqual([
        'Invalid',
        'resourceVersion should not be set on objects to be created',
      ]);
      // A dry run writes nothing, so it takes the object as given, as the reference's dry-run storage does.
      const dryRun = await resources.create({ namespace: 'ns', name: 'dry' }, pod('dry', { resourceVersion: '5' }), {
        dryRun: true,
      });
      expect(dryRun.metadata.resourceVersion).toBe('5');
      await expect(resources.get({ namespace: 'ns', name: 'dry' })).rejects.toMatchObject({ reason: 'NotFound' });

      await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
      const exists = await objectError(resources.create({ namespace: 'ns', name: 'a' }, pod('a')));
      expect([exists.reason, exists.message, exists.details.name]).toEqual([
        'AlreadyExists',
        'pods "a" already exists',
        'a',
      ]);

      const missingNamespace = await objectError(resources.create({ name: 'b' }, pod('b')));
      expect([missingNamespace.reason, missingNamespace.message]).toEqual([
        'BadRequest',
        'Namespace parameter required.',
      ]);
      const badName = await objectError(resources.create({ namespace: 'ns', name: '..' }, pod('..')));
      expect(badName.reason).toBe('BadRequest');
    });

    it('names a grouped resource with its group', async () => {
      const deployments = new ResourceStore({
        store,
        keyPrefix: freshPrefix('deployments.apps'),
        qualifiedResource: { group: 'apps', resource: 'deployments' },
        namespaced: true,
      });
      await deployments.create({ namespace: 'ns', name: 'd' }, pod('d'));
      expect((await objectError(deployments.create({ namespace: 'ns', name: 'd' }, pod('d')))).message).toBe(
        'deployments.apps "d" already exists',
      );
      expect((await objectError(deployments.get({ namespace: 'ns', name: 'x' }))).message).toBe(
        'deployments.apps "x" not found',
      );
    });

    it('keys cluster-scoped objects by name alone', async () => {
      const keyPrefix = freshPrefix('nodes');
      const nodes = new ResourceStore({
        store,
        keyPrefix,
        qualifiedResource: { group: '', resource: 'nodes' },
        namespaced: false,
      });
      await nodes.create({ name: 'n1' }, { kind: 'Node', metadata: { name: 'n1' } });
      expect((await store.get(`${keyPrefix}/n1`)).kv).toBeDefined();
      expect((await nodes.list({}, { predicate: { everything: true, matches: () => true } })).items).toHaveLength(1);
    });

    it('writes nothing on dry run, but still reports an existing key', async () => {
      const resources = pods();
      const before = await store.currentRevision();
      const answer = await resources.create({ namespace: 'ns', name: 'a' }, pod('a'), { dryRun: true });
      expect(answer.metadata.name).toBe('a');
      expect(await store.currentRevision()).toBe(before);
      expect((await objectError(resources.get({ namespace: 'ns', name: 'a' }))).reason).toBe('NotFound');

      await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
      expect(
        (await objectError(resources.create({ namespace: 'ns', name: 'a' }, pod('a'), { dryRun: true }))).reason,
      ).toBe('AlreadyExists');
    });
  });

  describe('get', () => {
    it('answers NotFound, not-older-than reads, and too large versions', async () => {
      const resources = pods();
      const notFound = await objectError(resources.get({ namespace: 'ns', name: 'nope' }));
      expect([notFound.reason, notFound.message]).toEqual(['NotFound', 'pods "nope" not found']);

      const created = await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
      expect(await resources.get({ namespace: 'ns', name: 'a' }, { resourceVersion: '0' })).toEqual(created);
      expect(
        await resources.get({ namespace: 'ns', name: 'a' }, { resourceVersion: created.metadata.resourceVersion }),
      ).toEqual(created);

      const current = await store.currentRevision();
      const tooLarge = await objectError(
        resources.get({ namespace: 'ns', name: 'a' }, { resourceVersion: String(current + 100) }),
      );
      expect(tooLarge.reason).toBe('TooLargeResourceVersion');
      expect(tooLarge.message).toBe(`Timeout: Too large resource version: ${current + 100}, current: ${current}`);
      expect(tooLarge.details.retryAfterSeconds).toBe(1);

      const invalid = await objectError(resources.get({ namespace: 'ns', name: 'a' }, { resourceVersion: 'x' }));
      expect([invalid.reason, invalid.message]).toEqual([
        'BadRequest',
        'invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax',
      ]);
    });
  });

  describe('update', () => {
    const key = { namespace: 'ns', name: 'a' };
    const bump = (object: KubeObject | undefined): KubeObject => {
      const current = object as KubeObject;
      return { ...current, spec: { n: (current.spec as { n: number }).n + 1 } };
    };

    it('writes the change at a new revision and gives the function a private copy', async () => {
      const resources = pods();
      const created = await resources.create(key, pod('a'));
      let seen: KubeObject | undefined;
      const result = await resources.update(key, (current) => {
        seen = current;
        (current as KubeObject).metadata.labels = { changed: 'yes' };
        return current as KubeObject;
      });
      expect(seen?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      expect(result.created).toBe(false);
      expect(result.object.metadata.labels).toEqual({ changed: 'yes' });
      expect(Number(result.object.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
      expect(created.metadata.labels).toBeUndefined();
      expect(await resources.get(key)).toEqual(result.object);
    });

    it('writes nothing when the bytes do not change', async () => {
      const resources = pods();
      const created = await resources.create(key, pod('a'));
      const before = await store.currentRevision();
      const result = await resources.update(key, (current) => ({
        ...(current as KubeObject),
        metadata: { ...(current as KubeObject).metadata, resourceVersion: '999' },
      }));
      expect(result.object).toEqual(created);
      expect(await store.currentRevision()).toBe(before);
    });

    it('answers NotFound, or creates with allowCreate', async () => {
      const resources = pods();
      const notFound = await objectError(resources.update(key, bump));
      expect([notFound.reason, notFound.message]).toEqual(['NotFound', 'pods "a" not found']);

      const result = await resources.update(key, (current) => current ?? pod('a'), { allowCreate: true });
      expect(result.created).toBe(true);
      expect(await resources.get(key)).toEqual(result.object);
    });

    it('checks uid and resourceVersion preconditions', async () => {
      const keyPrefix = freshPrefix('pods');
      const resources = podsAt(keyPrefix);
      const created = await resources.create(key, pod('a'));
      const uid = await objectError(resources.update(key, bump, { preconditions: { uid: 'other' } }));
      expect(uid.reason).toBe('Conflict');
      expect(uid.message).toBe(
        `Operation cannot be fulfilled on pods "a": StorageError: invalid object, Code: 4, Key: ${keyPrefix}/ns/a, ` +
          'ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: uid-a',
      );

      await resources.update(key, bump);
      const stale = await objectError(
        resources.update(key, bump, { preconditions: { resourceVersion: created.metadata.resourceVersion } }),
      );
      expect([stale.reason, stale.message]).toEqual([
        'Conflict',
        `Operation cannot be fulfilled on pods "a": ${OPTIMISTIC_LOCK_MESSAGE}`,
      ]);

      const current = await resources.get(key);
      const fresh = await resources.update(key, bump, {
        preconditions: { uid: 'uid-a', resourceVersion: current.metadata.resourceVersion },
      });
      expect(fresh.object.spec).toEqual({ n: 2 });
    });

    it('runs the function on a dry run without writing', async () => {
      const resources = pods();
      const created = await resources.create(key, pod('a'));
      const before = await store.currentRevision();
      const result = await resources.update(key, bump, { dryRun: true });
      expect(result.object.spec).toEqual({ n: 1 });
      expect(result.object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      expect(await store.currentRevision()).toBe(before);
      expect((await resources.get(key)).spec).toEqual({ n: 0 });
    });

    it('retries from fresh state when a concurrent write wins', async () => {
      const resources = pods();
      await resources.create(key, pod('a'));
      let calls = 0;
      const result = await resources.update(key, async (current) => {
        calls += 1;
        // The first attempt loses: another writer bumps the object between read and write.
        if (calls === 1) await resources.update(key, bump);
        return bump(current);
      });
      expect(calls).toBe(2);
      expect(result.object.spec).toEqual({ n: 2 });
    });

    it('keeps every increment of concurrent updaters on separate clients', async () => {
      const keyPrefix = freshPrefix('configmaps');
      const writers = await Promise.all(
        Array.from(
          { length: 4 },
          async () =>
            new ResourceStore({
              store: await running.connect(),
              keyPrefix,
              qualifiedResource: { group: '', resource: 'configmaps' },
              namespaced: true,
            }),
        ),
      );
      await writers[0].create(key, pod('a'));
      const incrementsEach = 10;
      await Promise.all(
        writers.map(async (writer) => {
          for (let i = 0; i < incrementsEach; i += 1) await writer.update(key, bump);
        }),
      );
      expect((await writers[0].get(key)).spec).toEqual({ n: writers.length * incrementsEach });
    });
  });

  describe('delete', () => {
    const key = { namespace: 'ns', name: 'a' };

    it('removes the key and answers the last state at the deletion revision', async () => {
      const resources = pods();
      const created = await resources.create(key, pod('a'));
      const deleted = await resources.delete(key);
      expect(deleted.metadata.resourceVersion).toBe(String(await store.currentRevision()));
      expect(deleted.spec).toEqual(created.spec);
      const notFound = await objectError(resources.delete(key));
      expect([notFound.reason, notFound.message]).toEqual(['NotFound', 'pods "a" not found']);
    });

    it('checks preconditions and the validate hook, and writes nothing on dry run', async () => {
      const keyPrefix = freshPrefix('pods');
      const resources = podsAt(keyPrefix);
      const created = await resources.create(key, pod('a'));
      const storeKey = `${keyPrefix}/ns/a`;

      const uid = await objectError(resources.delete(key, { preconditions: { uid: 'x' } }));
      expect([uid.reason, uid.message]).toEqual([
        'Conflict',
        `Operation cannot be fulfilled on pods "a": StorageError: invalid object, Code: 4, Key: ${storeKey}, ` +
          'ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: x, UID in object meta: uid-a',
      ]);
      const version = await objectError(resources.delete(key, { preconditions: { resourceVersion: '1' } }));
      expect(version.message).toBe(
        `Operation cannot be fulfilled on pods "a": StorageError: invalid object, Code: 4, Key: ${storeKey}, ` +
          `ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: 1, ` +
          `ResourceVersion in object meta: ${created.metadata.resourceVersion}`,
      );

      const refusal = new ObjectError('Invalid', 'not now');
      await expect(
        resources.delete(key, {
          validate: () => {
            throw refusal;
          },
        }),
      ).rejects.toBe(refusal);

      const before = await store.currentRevision();
      expect(await resources.delete(key, { dryRun: true })).toEqual(created);
      expect(await store.currentRevision()).toBe(before);

      await resources.delete(key, {
        preconditions: { uid: 'uid-a', resourceVersion: created.metadata.resourceVersion },
      });
      expect((await objectError(resources.get(key))).reason).toBe('NotFound');
    });

    it('re-validates against fresh state when a concurrent write wins', async () => {
      const resources = pods();
      await resources.create(key, pod('a'));
      const validated: string[] = [];
      await resources.delete(key, {
        validate: async (current) => {
          validated.push(String(current.metadata.resourceVersion));
          if (validated.length === 1)
            await resources.update(key, (object) => ({ ...(object as KubeObject), spec: { n: 5 } }));
        },
      });
      expect(validated).toHaveLength(2);
      expect(validated[1]).not.toBe(validated[0]);
    });
  });

  describe('a write past its deadline', () => {
    const key = { namespace: 'ns', name: 'a' };
    const past = () => Date.now() - 1;

    it('is not sent: create, update (also one that creates) and delete fail and change nothing', async () => {
      const resources = pods();
      await expect(resources.create(key, pod('a'), { deadline: past() })).rejects.toThrow(DeadlineExceededError);
      await expect(resources.get(key)).rejects.toMatchObject({ reason: 'NotFound' });
      const revision = await store.currentRevision();
      await expect(resources.update(key, () => pod('a'), { allowCreate: true, deadline: past() })).rejects.toThrow(
        'context deadline exceeded',
      );

      const created = await resources.create(key, pod('a'), { deadline: Date.now() + 60_000 });
      expect(Number(created.metadata.resourceVersion)).toBe(revision + 1);
      let updates = 0;
      await expect(
        resources.update(
          key,
          (current) => {
            updates++;
            return { ...(current as KubeObject), spec: { n: 9 } };
          },
          { deadline: past() },
        ),
      ).rejects.toThrow(DeadlineExceededError);
      // The update function ran (admission may have run in it); only the write was held back.
      expect(updates).toBe(1);
      await expect(resources.delete(key, { deadline: past() })).rejects.toThrow(DeadlineExceededError);
      await expect(resources.delete(key, { ignoreStoreReadError: true, deadline: past() })).rejects.toThrow(
        DeadlineExceededError,
      );
      expect(await resources.get(key)).toEqual(created);
      expect(await store.currentRevision()).toBe(revision + 1);
    });

    it('holds nothing back from a dry run or an update that changes nothing', async () => {
      const resources = pods();
      const created = await resources.create(key, pod('a'));
      expect(await resources.create(key, pod('b'), { dryRun: true, deadline: past() }).catch((e) => e)).toMatchObject({
        reason: 'AlreadyExists',
      });
      const same = await resources.update(key, (current) => current as KubeObject, { deadline: past() });
      expect(same.object).toEqual(created);
      expect((await resources.delete(key, { dryRun: true, deadline: past() })).metadata.name).toBe('a');
    });
  });
});
