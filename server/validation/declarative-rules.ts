/**
 * The declarative rules of the 1.34 types capstan serves (the reference's generated
 * `zz_generated.validations.go`): ReplicationController spec.replicas and spec.minReadySeconds
 * (also checked through its scale subresource) and CertificateSigningRequest status.conditions.
 * On update a rule passes a field that did not change, as the generated code does. The other
 * generated rules belong to versions 1.34 does not serve (apps/v1beta1, apps/v1beta2 Scale,
 * certificates.k8s.io/v1beta1 CertificateSigningRequest).
 */
import type { KubeObject } from '../../api/objects';
import { deepEqual, FieldPath, invalid } from '../status/field-errors';
import type { DeclarativeFieldError } from './declarative-validation';

/** validate.Minimum. */
function minimum(value: number, path: FieldPath, least: number): DeclarativeFieldError[] {
  return value < least
    ? [{ ...invalid(path, value, `must be greater than or equal to ${least}`), origin: 'minimum' }]
    : [];
}

interface ReplicationControllerSpec {
  replicas?: number;
  minReadySeconds?: number;
}

const specOf = (controller: KubeObject | undefined) => controller?.spec as ReplicationControllerSpec | undefined;

/**
 * `old`: the stored controller, on update. The generated rule also requires replicas, which the
 * defaults always set before validation (a create or patch without replicas stores 1).
 */
export function replicationControllerDeclarativeErrors(
  controller: KubeObject,
  old?: KubeObject,
): DeclarativeFieldError[] {
  const spec = specOf(controller) ?? {};
  const oldSpec = specOf(old);
  const changed = (member: keyof ReplicationControllerSpec) => old === undefined || spec[member] !== oldSpec?.[member];
  const path = FieldPath.root('spec');
  return [
    ...(changed('replicas') && spec.replicas !== undefined ? minimum(spec.replicas, path.child('replicas'), 0) : []),
    ...(changed('minReadySeconds') ? minimum(spec.minReadySeconds ?? 0, path.child('minReadySeconds'), 0) : []),
  ];
}

interface CSRCondition {
  type?: string;
}

const conditionsOf = (csr: KubeObject | undefined) =>
  (csr?.status as { conditions?: CSRCondition[] } | undefined)?.conditions ?? [];

/** The union's members as the generated code names them, in its order. */
const DECISION_MEMBERS: readonly (readonly [string, string])[] = [
  ['Approved', 'Conditions[{"type": "Approved"}]'],
  ['Denied', 'Conditions[{"type": "Denied"}]'],
];

/**
 * At most one of an Approved and a Denied condition (a zeroOrOneOf union over the list). On
 * update (every write that can set conditions is one) it judges only a change of which members
 * are present.
 */
export function certificateSigningRequestDeclarativeErrors(csr: KubeObject, old?: KubeObject): DeclarativeFieldError[] {
  const conditions = conditionsOf(csr);
  if (conditions.length === 0) return [];
  const present = (list: CSRCondition[]) =>
    DECISION_MEMBERS.map(([type]) => list.some((condition) => condition.type === type));
  const now = present(conditions);
  if (old !== undefined && (deepEqual(conditions, conditionsOf(old)) || deepEqual(now, present(conditionsOf(old)))))
    return [];
  const specified = DECISION_MEMBERS.filter((_, i) => now[i]).map(([, member]) => member);
  if (specified.length < 2) return [];
  const all = DECISION_MEMBERS.map(([, member]) => `\`${member}\``).join(', ');
  const error = invalid(
    FieldPath.root('status', 'conditions'),
    `{${specified.join(', ')}}`,
    `must specify at most one of: ${all}`,
  );
  return [{ ...error, origin: 'zeroOrOneOf' }];
}
