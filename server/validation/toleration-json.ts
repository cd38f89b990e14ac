/**
 * Tolerations written as a JSON list in an annotation (a pod's
 * `scheduler.alpha.kubernetes.io/tolerations`, a namespace's default and whitelisted ones), read
 * as Go's encoding/json reads them into a list of the reference's Toleration structs: keys matched
 * regardless of case, null leaving a member unset, and its error texts, which name the Go package
 * the reader decodes into. A pod's annotation is validated as its spec's tolerations are.
 */
import { goJSONSyntaxError, goTypeOf } from '../../api/go-json-syntax';
import type { FieldError } from '../status/field-error';
import { invalid, type FieldPath } from '../status/field-errors';
import { validateTolerations, type Toleration } from './pod-scheduling';

/** The alpha annotation tolerations were written in before the field, which the reference still validates. */
export const POD_TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';

/**
 * The Go package of the Toleration struct decoded into: the versioned one, whose members carry
 * their JSON names, or the internal one, whose members have none and go by their Go names.
 */
export type TolerationGoPackage = 'v1' | 'core';

export type DecodedTolerations =
  | { readonly tolerations: Toleration[]; readonly error?: undefined }
  | { readonly error: string; readonly tolerations?: undefined };

interface TolerationMember {
  readonly json: keyof Toleration;
  readonly goName: string;
  /** The member's Go type as Go's errors name it. */
  readonly goType: (goPackage: TolerationGoPackage) => string;
  readonly holds: (value: unknown) => boolean;
}

const isString = (value: unknown) => typeof value === 'string';
const TOLERATION_MEMBERS: readonly TolerationMember[] = [
  { json: 'key', goName: 'Key', goType: () => 'string', holds: isString },
  { json: 'operator', goName: 'Operator', goType: (pkg) => `${pkg}.TolerationOperator`, holds: isString },
  { json: 'value', goName: 'Value', goType: () => 'string', holds: isString },
  { json: 'effect', goName: 'Effect', goType: (pkg) => `${pkg}.TaintEffect`, holds: isString },
  { json: 'tolerationSeconds', goName: 'TolerationSeconds', goType: () => 'int64', holds: Number.isSafeInteger },
];

export function decodeTolerations(text: string, goPackage: TolerationGoPackage): DecodedTolerations {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch {
    return { error: goJSONSyntaxError(text) };
  }
  const cannot = (what: string, into: string) => ({ error: `json: cannot unmarshal ${what} into Go ${into}` });
  if (decoded === null) return { tolerations: [] };
  if (!Array.isArray(decoded)) return cannot(goTypeOf(decoded), `value of type []${goPackage}.Toleration`);
  const tolerations: Toleration[] = [];
  for (const item of decoded as unknown[]) {
    if (item === null) {
      tolerations.push({});
      continue;
    }
    if (typeof item !== 'object' || Array.isArray(item))
      return cannot(goTypeOf(item), `value of type ${goPackage}.Toleration`);
    const toleration: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(item)) {
      const member = TOLERATION_MEMBERS.find(({ json }) => json.toLowerCase() === name.toLowerCase());
      if (member === undefined || value === null) continue;
      if (!member.holds(value)) {
        const memberName = goPackage === 'v1' ? member.json : member.goName;
        const goType = member.goType(goPackage);
        // Go names a number an integer member could not take by its text, any other value by its kind.
        const what = typeof value === 'number' && goType === 'int64' ? `number ${value}` : goTypeOf(value);
        return cannot(what, `struct field Toleration.${memberName} of type ${goType}`);
      }
      toleration[member.json] = value;
    }
    tolerations.push(toleration as Toleration);
  }
  return { tolerations };
}

/**
 * A pod's or template's tolerations annotation, unless empty, as ValidateTolerationsInPodAnnotations
 * judges it: one the reference cannot decode is refused at the annotations, with the annotation's
 * key as the value and Go's decoding error; decoded tolerations are held to the field's rules,
 * reported below the annotation's key as a member of the path.
 */
export function podTolerationAnnotationErrors(
  annotations: Readonly<Record<string, string>> | undefined,
  annotationsPath: FieldPath,
): FieldError[] {
  const text = annotations?.[POD_TOLERATIONS_ANNOTATION];
  if (text === undefined || text === '') return [];
  const { tolerations, error } = decodeTolerations(text, 'core');
  if (error !== undefined) return [invalid(annotationsPath, POD_TOLERATIONS_ANNOTATION, error)];
  return validateTolerations(tolerations, annotationsPath.child(POD_TOLERATIONS_ANNOTATION));
}
