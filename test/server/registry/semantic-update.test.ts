/**
 * Updates whose answer turns on how the reference decides that a value did not change, against
 * what kube-apiserver 1.34.4 answered (fixtures/semantic-update.json: the object created, the
 * members the update set, null where it removed one, and the causes of the answer; the value
 * of an immutable spec or pod template is cut to `…`: the reference prints it in its internal
 * form, which capstan does not copy, with the Job's uid). Immutable fields and fixed specs compare as apimachinery's Semantic.DeepEqual of
 * the internal structs: an empty list or map is no change, nor a quantity written another way,
 * nor a missing value struct or scalar sent as its zero; a pointer set where there was none is a
 * change (the cases named (control)). The reference compares a ConfigMap's data and a
 * StorageClass's parameters with reflect.DeepEqual instead; their cases stay as they were.
 * An immutable ConfigMap's or Secret's maps, each sent missing, empty or with values over each
 * created so, mutable too as controls: reflect.DeepEqual tells an empty map sent from the nil
 * that protobuf storage leaves of an empty one, except a ConfigMap's data, which
 * SetDefaults_ConfigMap fills on both sides; an empty stringData adds no data map. A
 * VolumeAttachment's inline volume changed against its rules is refused by them twice (the
 * strategy runs ValidateVolumeAttachment, and ValidateVolumeAttachmentUpdate runs it again)
 * before the fixed spec.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { typeOf } from './gated-fields/write-path';
import { recordedUpdateCauses } from './recorded-update';

interface Case {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  readonly object: KubeObject;
  /** Members written before the update, as an earlier write stored them. */
  readonly storedAs?: Record<string, unknown>;
  readonly changed: Record<string, unknown>;
  readonly target?: 'main' | 'status';
  readonly code: number;
  readonly causes: readonly string[];
}

const CASES: readonly Case[] = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'semantic-update.json'), 'utf8'));

const withoutInternalValue = (cause: string) =>
  cause.replace(
    /^(spec|spec\.template): Invalid value: .*: field is immutable$/,
    '$1: Invalid value: …: field is immutable',
  );

test.each(CASES.map((c) => [c.name, c] as const))(
  '%s',
  (_name, { group, resource, object, storedAs, changed, target, code, causes }) => {
    const type = typeOf(group, resource);
    const sent = (
      type.namespaced ? { ...object, metadata: { ...object.metadata, namespace: 'default' } } : object
    ) as KubeObject;
    const answered = recordedUpdateCauses(type, sent, { storedAs, changed, target });
    expect(answered.map(withoutInternalValue)).toEqual(code < 300 ? [] : causes);
  },
);
