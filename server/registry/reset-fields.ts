/**
 * The fields a write through an endpoint of a kind may not own: the reference's reset fields of
 * the strategy behind it, which its field manager leaves out of the writer's entry and of the
 * conflicts it counts.
 */
import type { ResourceType } from './types';

type FieldPaths = readonly (readonly string[])[];

/** What most status strategies reset: the spec, kept from the stored object. */
const SPEC: FieldPaths = [['spec']];

const STATUS: FieldPaths = [['status']];
const NOTHING: FieldPaths = [];

/** Fields a write to the main resource never owns, each a path of field names. */
export function mainResetFieldsOf(type: ResourceType): FieldPaths {
  return type.mainResetFields ?? (type.subresources.status ? STATUS : NOTHING);
}

/** Fields a write through /status never owns, each a path of field names. */
export function statusResetFieldsOf(type: ResourceType): FieldPaths {
  return type.statusResetFields ?? SPEC;
}

/** What the reference's status strategies that reset all metadata as well as spec name. */
export const METADATA_AND_SPEC: FieldPaths = [['metadata'], ['spec']];
