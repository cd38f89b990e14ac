/**
 * Escalation prevention as a validating admission step of the four RBAC kinds: it sees the
 * requesting user and the object as it will be stored. Writes that leave the rules (of a role)
 * or the subjects and role (of a binding) as they were grant nothing new and pass.
 */
import type { AdmissionPlugin } from '../../admission/types';
import { deepEqual } from '../../status/field-errors';
import type { Authorizer } from '../types';
import { checkBindingWrite, checkRoleWrite } from './escalation';
import { RBAC_GROUP } from './policy';
import type { RuleResolver } from './rule-resolver';

const ROLE_KINDS: ReadonlySet<string> = new Set(['roles', 'clusterroles']);
const BINDING_KINDS: ReadonlySet<string> = new Set(['rolebindings', 'clusterrolebindings']);

export function rbacEscalationPrevention(resolver: RuleResolver, authorizer: Authorizer): AdmissionPlugin {
  return {
    name: 'RBACEscalationPrevention',
    async validate(request) {
      const { kind, resource, object, oldObject, userInfo: user } = request;
      if (resource.group !== RBAC_GROUP || object === undefined || request.subResource !== '') return;
      if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return;
      const context = { user, resolver, authorizer };
      if (ROLE_KINDS.has(resource.resource)) {
        if (
          oldObject &&
          deepEqual(object.rules ?? [], oldObject.rules ?? []) &&
          deepEqual(object.aggregationRule, oldObject.aggregationRule)
        )
          return;
        const error = await checkRoleWrite(context, { ...object, kind: kind.kind });
        if (error) throw error;
      } else if (BINDING_KINDS.has(resource.resource)) {
        if (
          oldObject &&
          deepEqual(object.subjects ?? [], oldObject.subjects ?? []) &&
          deepEqual(object.roleRef, oldObject.roleRef)
        )
          return;
        const error = await checkBindingWrite(context, { ...object, kind: kind.kind });
        if (error) throw error;
      }
    },
  };
}
