/**
 * Decoded `managedFields[].fieldsV1` trees shared between the stored objects whose entries are
 * byte for byte the same.
 *
 * A watch cache holds every object decoded, and in a cache of pods most of the heap's objects
 * are those trees: in a heap snapshot of 55,000 cached pods, 69% of all plain objects were
 * FieldsV1 nodes. They are what the collector's old-generation marking walks, and that marking
 * is what a replica's write tail under churn is made of (docs/benchmarks.md). Yet the entries
 * repeat: every pod of one ReplicaSet has the same fields set by the same manager, so the same
 * FieldsV1 bytes. Decoding each distinct text once, and handing the same tree to every object
 * that carries it, keeps one tree per distinct entry instead of one per object, and skips the
 * JSON parse of every repeat.
 *
 * Sharing is safe because a FieldsV1 tree is never changed in place (field-set.ts builds new
 * nodes for every write, and stored objects are shared by the cache's readers already); the
 * trees are frozen, so that a change in place would throw where it is made rather than alter
 * every object sharing the tree.
 *
 * The table is keyed by the SHA-256 of the bytes, not the text, past a short text: a key as
 * long as the text would double what an entry seen only once costs (a kubelet's status entry
 * names its pod's IPs, so it is unique). Its values are weak, so it holds only trees some
 * object still holds; a collected tree's key is dropped by the finalization callback.
 */
import { hash } from 'node:crypto';

export type SharedFieldSet = { readonly [key: string]: SharedFieldSet };

/**
 * Up to this size the text is its own key: for a ConfigMap's 90-byte entry, a lookup by text
 * takes 0.3 µs, by SHA-256 0.7 µs, where parsing it would take 0.9 µs. A text key holds `{`,
 * which base64 never does, so the two kinds of key never meet.
 */
const TEXT_KEY_MAX_LENGTH = 256;

const trees = new Map<string, WeakRef<SharedFieldSet>>();
const forgetCollected = new FinalizationRegistry<string>((key) => {
  if (trees.get(key)?.deref() === undefined) trees.delete(key);
});

/**
 * The value of a FieldsV1's JSON bytes, as a protobuf value carries them: for an object, the
 * tree already decoded from the same bytes if any object still holds it. Any other value (a
 * store another server wrote need not hold a tree there) is decoded afresh.
 */
export function sharedFieldsV1(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  return sharedTree(text, () => JSON.parse(text));
}

/**
 * The same for an object decoded whole (a JSON, YAML or CBOR value: custom resources, and
 * built-in kinds under another `--storage-media-type`): each managedFields entry's tree is
 * replaced by the shared one, keyed by its compact JSON, which is what protobuf carries.
 */
export function shareFieldSetsOf(object: { readonly metadata?: { readonly managedFields?: unknown } }): void {
  const entries = object.metadata?.managedFields;
  if (!Array.isArray(entries)) return;
  for (const entry of entries as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const fields = (entry as { fieldsV1?: unknown }).fieldsV1;
    if (typeof fields === 'object' && fields !== null && !Array.isArray(fields))
      (entry as { fieldsV1: unknown }).fieldsV1 = sharedTree(JSON.stringify(fields), () => fields);
  }
}

function sharedTree(text: string, decode: () => unknown): unknown {
  const key = text.length <= TEXT_KEY_MAX_LENGTH ? text : hash('sha256', text, 'base64');
  const known = trees.get(key)?.deref();
  if (known !== undefined) return known;
  const value = decode();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const tree = deepFreeze(value as Record<string, unknown>);
  trees.set(key, new WeakRef(tree));
  forgetCollected.register(tree, key);
  return tree;
}

/** How many distinct trees are held, for the tests. */
export function sharedFieldSetCount(): number {
  return trees.size;
}

/**
 * Most nodes of a tree are leaves (`"f:image":{}`): within a tree too, every empty node is
 * one object, which a distinct tree (a kubelet's entry names its pod's IPs) shares as well.
 */
const LEAF: SharedFieldSet = Object.freeze({});

function deepFreeze(node: Record<string, unknown>): SharedFieldSet {
  for (const key of Object.keys(node)) {
    const child = node[key];
    if (typeof child !== 'object' || child === null) continue;
    if (!Array.isArray(child) && Object.keys(child).length === 0) node[key] = LEAF;
    else deepFreeze(child as Record<string, unknown>);
  }
  return Object.freeze(node) as SharedFieldSet;
}
