/**
 * Who may point an admission policy at its params. A policy's paramKind needs `get` on every
 * object of that kind, and a binding's paramRef `get` on the object it names (`list` when it
 * selects), as the reference's policy and binding strategies check once the object is otherwise
 * valid: a user could otherwise read params through the policy's messages. A member of
 * system:masters is not asked. The refusal is a 422 with a Forbidden cause at spec.paramKind or
 * spec.paramRef, in the reference's words (the user printed as Go prints its DefaultInfo); here it
 * is a store hook, run at the point a strategy's validation would end (registry/store/update.ts).
 */
import { parseGroupVersion, type GroupKind, type GroupVersion, type GroupVersionKind } from '../../../api/identity';
import type { KubeObject } from '../../../api/objects';
import type { UserInfo } from '../../../api/user-info';
import { escalationAllowed } from '../../authz/rbac/escalation';
import type { Authorizer } from '../../authz/types';
import { invalid } from '../../status/catalogue';
import { unlessNotFound } from '../../../storage/errors';
import type { ObjectStorage } from '../../../storage/objects/types';
import { deepEqual, FieldPath, forbidden } from '../../status/field-errors';
import type { ResourceType } from '../types';
import { FINISH_NOTHING, type FinishWrite, type StoreHooks } from '../store/hooks';

interface ParamKind {
  readonly apiVersion?: string;
  readonly kind?: string;
}

interface ParamRef {
  readonly name?: string;
  readonly namespace?: string;
}

/** The kinds a paramKind may name, as the server serves them (custom resources included). */
export interface KindResolver {
  findKind(gvk: GroupVersionKind): ResourceType | undefined;
}

/** What the params of a kind are read as: the parsed group and version, and the served resource, else `*`. */
interface ParamTarget {
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  /** Why the target had to stay `*`, in the reference's words. */
  readonly unresolved?: 'parse' | 'resolve';
}

const EVERYTHING: ParamTarget = { apiGroup: '*', apiVersion: '*', resource: '*' };

function paramTarget(paramKind: ParamKind, kinds: KindResolver): ParamTarget {
  const groupVersion = parseGroupVersion(paramKind.apiVersion ?? '');
  if (groupVersion === undefined) return { ...EVERYTHING, unresolved: 'parse' };
  const type = kinds.findKind({ ...groupVersion, kind: paramKind.kind ?? '' });
  return {
    apiGroup: groupVersion.group,
    apiVersion: groupVersion.version,
    resource: type?.resource ?? '*',
    unresolved: type === undefined ? 'resolve' : undefined,
  };
}

/** A user as Go's %v prints the reference's user.DefaultInfo. */
function goUser(user: UserInfo): string {
  const extra = Object.keys(user.extra ?? {})
    .sort()
    .map((key) => `${key}:[${(user.extra?.[key] ?? []).join(' ')}]`);
  return `&{${user.name} ${user.uid ?? ''} [${user.groups.join(' ')}] map[${extra.join(' ')}]}`;
}

function goParamKind(paramKind: ParamKind): string {
  return `&{${paramKind.apiVersion ?? ''} ${paramKind.kind ?? ''}}`;
}

async function allowed(
  authorizer: Authorizer,
  user: UserInfo,
  verb: string,
  target: ParamTarget,
  object: { readonly name: string; readonly namespace: string },
): Promise<boolean> {
  const { decision } = await authorizer.authorize({
    user,
    verb,
    isResourceRequest: true,
    path: '',
    namespace: object.namespace,
    apiGroup: target.apiGroup,
    apiVersion: target.apiVersion,
    resource: target.resource,
    subresource: '',
    name: object.name,
  });
  return decision === 'allow';
}

function specOf(object: KubeObject): { paramKind?: ParamKind; paramRef?: ParamRef; policyName?: string } {
  return (object.spec ?? {}) as { paramKind?: ParamKind; paramRef?: ParamRef; policyName?: string };
}

function refused(kind: GroupKind, object: KubeObject, field: 'paramKind' | 'paramRef', message: string): Error {
  return invalid(kind, object.metadata.name ?? '', [forbidden(FieldPath.root('spec', field), message)]);
}

/** A policy's paramKind: checked on create, and on an update that changes it. */
function policyParamKindHooks(kind: GroupKind, authorizer: Authorizer, kinds: KindResolver): StoreHooks {
  const check = async (object: KubeObject, user: UserInfo): Promise<FinishWrite> => {
    const paramKind = specOf(object).paramKind;
    if (paramKind === undefined || paramKind === null || escalationAllowed(user)) return FINISH_NOTHING;
    const target = paramTarget(paramKind, kinds);
    if (await allowed(authorizer, user, 'get', target, { name: '*', namespace: '*' })) return FINISH_NOTHING;
    throw refused(
      kind,
      object,
      'paramKind',
      `user ${goUser(user)} must have "get" permission on all objects of the referenced paramKind (kind=${paramKind.kind ?? ''}, apiVersion=${paramKind.apiVersion ?? ''})`,
    );
  };
  return {
    beginCreate: (object, { user }) => check(object, user),
    beginUpdate: (object, old, { user }) => {
      const before = specOf(old).paramKind;
      if (before !== undefined && before !== null && deepEqual(before, specOf(object).paramKind))
        return Promise.resolve(FINISH_NOTHING);
      return check(object, user);
    },
  };
}

interface BindingParamAccess {
  readonly kind: GroupKind;
  readonly authorizer: Authorizer;
  readonly kinds: KindResolver;
  /** The policy a binding names, or undefined when there is none. */
  readonly policyNamed: (name: string) => Promise<KubeObject | undefined>;
  /** The refusal when the policy's params could be found (the mutating binding's swaps its words). */
  readonly deniedMessage: (user: string, verb: string) => string;
}

/** The words of the ValidatingAdmissionPolicyBinding's refusal. */
const BINDING_DENIED = (user: string, verb: string): string =>
  `user ${user} does not have "${verb}" permission on the object referenced by paramRef`;

/**
 * A binding's paramRef: checked on every write that has one (the reference compares the old and
 * new paramRef by their pointers' addresses, so an update never finds them the same).
 */
function bindingParamRefHooks(access: BindingParamAccess): StoreHooks {
  const check = async (object: KubeObject, user: UserInfo): Promise<FinishWrite> => {
    const { paramRef, policyName = '' } = specOf(object);
    if (paramRef === undefined || paramRef === null || escalationAllowed(user)) return FINISH_NOTHING;
    const policy = await access.policyNamed(policyName);
    const paramKind = policy === undefined ? undefined : specOf(policy).paramKind;
    const target = paramKind === undefined || paramKind === null ? EVERYTHING : paramTarget(paramKind, access.kinds);
    const verb = paramRef.name ? 'get' : 'list';
    const name = paramRef.name ?? '';
    if (await allowed(access.authorizer, user, verb, target, { name, namespace: paramRef.namespace ?? '' }))
      return FINISH_NOTHING;
    const everything = `user ${goUser(user)} does not have "${verb}" permission for all groups, versions and resources`;
    const message =
      policy === undefined
        ? `unable to get policy ${policyName} to determine minimum required permissions and ${everything}`
        : target.unresolved !== undefined
          ? `unable to ${target.unresolved} paramKind ${goParamKind(paramKind ?? {})} to determine minimum required permissions and ${everything}`
          : access.deniedMessage(goUser(user), verb);
    throw refused(access.kind, object, 'paramRef', message);
  };
  return {
    beginCreate: (object, { user }) => check(object, user),
    beginUpdate: (object, _old, { user }) => check(object, user),
  };
}

const GROUP = 'admissionregistration.k8s.io';

export interface PolicyParamHooksOptions {
  readonly authorizer: Authorizer;
  readonly registry: KindResolver & { find(groupVersion: GroupVersion, resource: string): ResourceType | undefined };
  readonly storageFor: (type: ResourceType) => ObjectStorage;
}

/** The hooks of the four policy kinds, keyed `<group>/<resource>` as the control plane keys its kinds' hooks. */
export function admissionPolicyParamHooks({
  authorizer,
  registry,
  storageFor,
}: PolicyParamHooksOptions): ReadonlyArray<[string, StoreHooks]> {
  // Read when a binding is written: the mutating kinds are served only when switched on.
  const policyReader =
    (resource: string, version: string) =>
    async (name: string): Promise<KubeObject | undefined> => {
      const type = registry.find({ group: GROUP, version }, resource);
      if (type === undefined || name === '') return undefined;
      return unlessNotFound(storageFor(type).get({ name }));
    };
  return [
    [
      `${GROUP}/validatingadmissionpolicies`,
      policyParamKindHooks({ group: GROUP, kind: 'ValidatingAdmissionPolicy' }, authorizer, registry),
    ],
    [
      `${GROUP}/mutatingadmissionpolicies`,
      policyParamKindHooks({ group: GROUP, kind: 'MutatingAdmissionPolicy' }, authorizer, registry),
    ],
    [
      `${GROUP}/validatingadmissionpolicybindings`,
      bindingParamRefHooks({
        kind: { group: GROUP, kind: 'ValidatingAdmissionPolicyBinding' },
        authorizer,
        kinds: registry,
        policyNamed: policyReader('validatingadmissionpolicies', 'v1'),
        deniedMessage: BINDING_DENIED,
      }),
    ],
    [
      `${GROUP}/mutatingadmissionpolicybindings`,
      bindingParamRefHooks({
        kind: { group: GROUP, kind: 'MutatingAdmissionPolicyBinding' },
        authorizer,
        kinds: registry,
        policyNamed: policyReader('mutatingadmissionpolicies', 'v1beta1'),
        // The reference's mutating binding passes the verb and the user the other way round.
        deniedMessage: (user, verb) => BINDING_DENIED(verb, user),
      }),
    ],
  ];
}
