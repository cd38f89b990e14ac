/**
 * One entry of an object's `metadata.managedFields`: who manages which fields, by which kind of
 * write, at which version. Its own module because the entries' readers (managers.ts,
 * cap-updaters.ts) and the write that records them (managed-fields.ts) all speak it, and what
 * a client sends is read here before any of them sees it.
 */
import { isEmptySet, SELF, type FieldSet } from './field-set';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: FieldSet;
  subresource?: string;
}

/**
 * The entries as the reference's DecodeManagedFields reads them, or undefined where it fails:
 * each an `Update` or `Apply` at some apiVersion, of fieldsType `FieldsV1`, whose fields are a
 * FieldsV1 tree. What fails there leaves a write's managedFields to the stored ones.
 */
export function decodeManagedFields(sent: unknown): ManagedFieldsEntry[] | undefined {
  if (!Array.isArray(sent)) return undefined;
  let decoded: ManagedFieldsEntry[] | undefined;
  for (let index = 0; index < sent.length; index++) {
    const entry = sent[index] as ManagedFieldsEntry | null;
    if (typeof entry !== 'object' || entry === null) return undefined;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') return undefined;
    if (!entry.apiVersion || entry.fieldsType !== 'FieldsV1') return undefined;
    const fields = entry.fieldsV1 === undefined || entry.fieldsV1 === null ? {} : decodeFieldsV1(entry.fieldsV1);
    if (fields === undefined) return undefined;
    if (fields !== entry.fieldsV1 && decoded === undefined) decoded = sent.slice(0, index) as ManagedFieldsEntry[];
    decoded?.push(fields === entry.fieldsV1 ? entry : { ...entry, fieldsV1: fields });
  }
  return decoded ?? (sent as ManagedFieldsEntry[]);
}

/**
 * A FieldsV1 tree as the reference's reader takes it, or undefined where it fails: objects all
 * the way down (null is an empty node), keyed `.` or by a path element, `f:<name>`,
 * `k:<JSON object>`, `v:<JSON>` or `i:<integer>`; a key of another letter is dropped, one
 * without its colon fails. The tree itself when nothing is dropped or filled in.
 */
function decodeFieldsV1(node: unknown): FieldSet | undefined {
  if (!isTree(node)) return undefined;
  let decoded: FieldSet | undefined;
  const keys = Object.keys(node);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    const child = node[key];
    let kept: FieldSet | undefined | typeof DROPPED;
    if (key === SELF) kept = isTree(child) && isEmptySet(child) ? child : {};
    else {
      const element = pathElementKind(key);
      if (element === 'invalid') return undefined;
      kept = element === 'unknown' ? DROPPED : child === null ? {} : decodeFieldsV1(child);
      if (kept === undefined) return undefined;
    }
    if (kept !== child && decoded === undefined) {
      decoded = {};
      for (const earlier of keys.slice(0, index)) decoded[earlier] = node[earlier];
    }
    if (decoded !== undefined && kept !== DROPPED) decoded[key] = kept;
  }
  return decoded ?? node;
}

const DROPPED = Symbol('dropped');

function isTree(value: unknown): value is FieldSet {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a FieldsV1 key is a path element, one of a kind a later version may know, or neither. */
function pathElementKind(key: string): 'element' | 'unknown' | 'invalid' {
  if (key.length < 2 || key[1] !== ':') return 'invalid';
  const rest = key.slice(2);
  switch (key[0]) {
    case 'f':
      return 'element';
    case 'i':
      return /^[+-]?\d+$/.test(rest) ? 'element' : 'invalid';
    case 'v':
    case 'k':
      try {
        const value: unknown = JSON.parse(rest);
        const keyFields = typeof value === 'object' && value !== null && !Array.isArray(value);
        return key[0] === 'v' || keyFields ? 'element' : 'invalid';
      } catch {
        return 'invalid';
      }
    default:
      return 'unknown';
  }
}
