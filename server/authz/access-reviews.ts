/**
 * The authorization.k8s.io reviews, answered by the server's whole authorizer: whether a user
 * (SubjectAccessReview), a user in one namespace (LocalSubjectAccessReview) or the caller
 * (SelfSubjectAccessReview) may do something, and what the caller may do in a namespace
 * (SelfSubjectRulesReview). They are operations, not stored objects: each function takes the
 * decoded review (v1 or v1beta1) and answers it with its `status` filled, or throws the
 * Status error the reference answers.
 */
import type { UserInfo } from '../../api/user-info';
import type { KubeObject } from '../../api/objects';
import { inGoObjectMetaOrder } from '../../api/object-meta-order';
import { parseFieldSelector, type FieldRequirement } from '../selectors/field-selector';
import { parseLabelSelector, type LabelOperator, type LabelRequirement } from '../selectors/label-selector';
import { badRequest, invalid as invalidObject } from '../status/catalogue';
import type { StatusError } from '../status/status-error';
import { FieldPath, invalid } from '../status/field-errors';
import type { FieldError } from '../registry/types';
import { nonResourceAttributes, type Attributes, type Authorizer } from './types';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

interface SelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: { rawSelector?: string; requirements?: SelectorRequirement[] };
  labelSelector?: { rawSelector?: string; requirements?: SelectorRequirement[] };
}

interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

interface ReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  /** v1 */
  groups?: string[];
  /** v1beta1 spells it `group`. */
  group?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

export interface AccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

function specOf(review: KubeObject): ReviewSpec {
  return (review.spec as ReviewSpec | undefined) ?? {};
}

/**
 * The reference names neither kind nor object here: it reads the review into a type without
 * them (`.authorization.k8s.io "" is invalid: ...`, asked of kube-apiserver 1.34.4).
 */
function rejectInvalid(errors: readonly FieldError[]): void {
  if (errors.length > 0) throw invalidObject({ group: AUTHORIZATION_GROUP, kind: '' }, '', errors) as StatusError;
}

function attributeErrors(spec: ReviewSpec): FieldError[] {
  const path = FieldPath.root('spec');
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    return [
      invalid(
        path.child('nonResourceAttributes'),
        // Printed as the reference prints its internal type, whose members carry no JSON names.
        { Path: spec.nonResourceAttributes.path ?? '', Verb: spec.nonResourceAttributes.verb ?? '' },
        'cannot be specified in combination with resourceAttributes',
      ),
    ];
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    return [
      invalid(
        path.child('resourceAttributes'),
        null,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    ];
  }
  return [];
}

/** ObjectMeta's pointer members, which are set even when they point at a zero. */
const POINTER_MEMBERS: ReadonlySet<string> = new Set(['deletionTimestamp', 'deletionGracePeriodSeconds']);

/** Whether a decoded member is its Go type's zero (apiequality.Semantic: an empty map or list is as nil). */
function isGoZero(member: string, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (POINTER_MEMBERS.has(member)) return false;
  if (value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** The members of a review's metadata that are set, as Go's JSON of the typed struct keeps them. */
function setMetadataMembers(review: KubeObject): [string, unknown][] {
  const metadata = (review.metadata ?? {}) as Record<string, unknown>;
  return Object.entries(metadata).filter(([member, value]) => !isGoZero(member, value));
}

/**
 * The reference's check that a review's metadata holds nothing but its field manager's entries
 * (and for a LocalSubjectAccessReview its namespace): reviews are questions, not objects with
 * names. The metadata prints as Go's JSON of ObjectMeta: zero members left out, maps sorted.
 */
function metadataErrors(review: KubeObject, except: 'namespace' | undefined): FieldError[] {
  const set = setMetadataMembers(review);
  if (set.every(([member]) => member === 'managedFields' || member === except)) return [];
  const printed = Object.fromEntries(
    set.map(([member, value]) => [member, member === 'labels' || member === 'annotations' ? sortedMap(value) : value]),
  );
  return [
    invalid(
      FieldPath.root('metadata'),
      inGoObjectMetaOrder(printed as KubeObject['metadata']),
      except === undefined ? 'must be empty' : `must be empty except for ${except}`,
    ),
  ];
}

function sortedMap(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const LABEL_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** Selector requirements of a review; ones that do not parse are left out, as the reference ignores them with a reason. */
function fieldRequirements(selector: ResourceAttributes['fieldSelector']): readonly FieldRequirement[] | undefined {
  if (selector === undefined) return undefined;
  try {
    if (selector.rawSelector) return parseFieldSelector(selector.rawSelector);
  } catch {
    return undefined;
  }
  return (selector.requirements ?? []).flatMap(({ key = '', operator, values = [] }): FieldRequirement[] => {
    if (values.length !== 1) return [];
    if (operator === 'In') return [{ field: key, operator: '=', value: values[0] }];
    if (operator === 'NotIn') return [{ field: key, operator: '!=', value: values[0] }];
    return [];
  });
}

function labelRequirements(selector: ResourceAttributes['labelSelector']): readonly LabelRequirement[] | undefined {
  if (selector === undefined) return undefined;
  try {
    if (selector.rawSelector) return parseLabelSelector(selector.rawSelector);
  } catch {
    return undefined;
  }
  return (selector.requirements ?? []).flatMap(({ key = '', operator = '', values = [] }) =>
    LABEL_OPERATORS[operator] ? [{ key, operator: LABEL_OPERATORS[operator], values }] : [],
  );
}

/** The attributes a review asks about, for this user. */
export function reviewAttributes(spec: ReviewSpec, user: UserInfo): Attributes {
  const resource = spec.resourceAttributes;
  if (resource) {
    return {
      user,
      verb: resource.verb ?? '',
      isResourceRequest: true,
      path: '',
      namespace: resource.namespace ?? '',
      apiGroup: resource.group ?? '',
      apiVersion: resource.version ?? '',
      resource: resource.resource ?? '',
      subresource: resource.subresource ?? '',
      name: resource.name ?? '',
      fieldSelector: fieldRequirements(resource.fieldSelector),
      labelSelector: labelRequirements(resource.labelSelector),
    };
  }
  const nonResource = spec.nonResourceAttributes ?? {};
  return nonResourceAttributes(user, nonResource.verb ?? '', nonResource.path ?? '');
}

async function decide(authorizer: Authorizer, attributes: Attributes): Promise<AccessReviewStatus> {
  try {
    const result = await authorizer.authorize(attributes);
    const status: AccessReviewStatus = { allowed: result.decision === 'allow' };
    if (result.decision === 'deny') status.denied = true;
    if (result.reason) status.reason = result.reason;
    return status;
  } catch (error) {
    return { allowed: false, evaluationError: (error as Error).message };
  }
}

/** The review with its status, and its metadata as Go writes the typed struct: zero members left out. */
function answered(review: KubeObject, status: AccessReviewStatus): KubeObject {
  return { ...review, metadata: Object.fromEntries(setMetadataMembers(review)) as KubeObject['metadata'], status };
}

function userOf(spec: ReviewSpec): UserInfo {
  return { name: spec.user ?? '', uid: spec.uid, groups: spec.groups ?? spec.group ?? [], extra: spec.extra };
}

export async function subjectAccessReview(review: KubeObject, authorizer: Authorizer): Promise<KubeObject> {
  const spec = specOf(review);
  const errors = attributeErrors(spec);
  if (!spec.user && (spec.groups ?? spec.group ?? []).length === 0) {
    errors.push(
      invalid(FieldPath.root('spec', 'user'), spec.user ?? '', 'at least one of user or group must be specified'),
    );
  }
  rejectInvalid([...errors, ...metadataErrors(review, undefined)]);
  return answered(review, await decide(authorizer, reviewAttributes(spec, userOf(spec))));
}

/** `namespace` is the one in the request's path, which the handler made the review's own. */
export async function localSubjectAccessReview(
  review: KubeObject,
  namespace: string,
  authorizer: Authorizer,
): Promise<KubeObject> {
  const spec = specOf(review);
  const errors = attributeErrors(spec);
  if (spec.nonResourceAttributes)
    errors.push(
      invalid(
        FieldPath.root('spec', 'nonResourceAttributes'),
        spec.nonResourceAttributes,
        'disallowed on this kind of request',
      ),
    );
  if (!spec.user && (spec.groups ?? spec.group ?? []).length === 0) {
    errors.push(
      invalid(FieldPath.root('spec', 'user'), spec.user ?? '', 'at least one of user or group must be specified'),
    );
  }
  errors.push(...metadataErrors(review, 'namespace'));
  if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== namespace) {
    errors.push(
      invalid(
        FieldPath.root('spec', 'resourceAttributes', 'namespace'),
        spec.resourceAttributes.namespace ?? '',
        'must match metadata.namespace',
      ),
    );
  }
  rejectInvalid(errors);
  return answered(review, await decide(authorizer, reviewAttributes(spec, userOf(spec))));
}

/** The caller's own access: the spec names no user, the request's does. */
export async function selfSubjectAccessReview(
  review: KubeObject,
  requester: UserInfo,
  authorizer: Authorizer,
): Promise<KubeObject> {
  const spec = specOf(review);
  rejectInvalid([...attributeErrors(spec), ...metadataErrors(review, undefined)]);
  return answered(review, await decide(authorizer, reviewAttributes(spec, requester)));
}

export async function selfSubjectRulesReview(
  review: KubeObject,
  requester: UserInfo,
  authorizer: Authorizer,
): Promise<KubeObject> {
  const namespace = ((review.spec as { namespace?: string } | undefined) ?? {}).namespace ?? '';
  if (namespace === '') throw badRequest('no namespace on request');
  // The answer is a new review holding only the rules, as the reference's: nothing of the question.
  const rulesReview = (status: object): KubeObject => ({
    apiVersion: review.apiVersion,
    kind: review.kind,
    metadata: {} as KubeObject['metadata'],
    spec: {},
    status,
  });
  if (authorizer.rulesFor === undefined)
    return rulesReview({ resourceRules: [], nonResourceRules: [], incomplete: true });
  const rules = await authorizer.rulesFor(requester, namespace);
  return rulesReview({
    resourceRules: rules.resourceRules,
    nonResourceRules: rules.nonResourceRules,
    incomplete: rules.incomplete,
    ...(rules.evaluationErrors.length > 0 ? { evaluationError: rules.evaluationErrors.join(', ') } : {}),
  });
}
