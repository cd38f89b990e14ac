/**
 * Escalation prevention for the four RBAC kinds, checked where the reference's RBAC storage
 * checks: on the object as admission leaves it, before the store validates it (an invalid role
 * the user could not grant is refused as forbidden, not as invalid). As in the reference, an
 * update is checked whole unless it changes only what the garbage collector writes: a user who
 * may update a binding but does not hold its role's rules may not even relabel it.
 */
import type { AdmissionPlugin } from '../../admission/types';
import { onlyGarbageCollectorFieldsChange } from '../../admission/garbage-collector-fields';
import type { Authorizer } from '../types';
import { checkBindingWrite, checkRoleWrite } from './escalation';
import { RBAC_GROUP } from './policy';
import type { RuleResolver } from './rule-resolver';

const ROLE_KINDS: ReadonlySet<string> = new Set(['roles', 'clusterroles']);
const BINDING_KINDS: ReadonlySet<string> = new Set(['rolebindings', 'clusterrolebindings']);

export function rbacEscalationPrevention(resolver: RuleResolver, authorizer: Authorizer): AdmissionPlugin {
  return {
    name: 'RBACEscalationPrevention',
    async admitted(request) {
      const { kind, resource, object, oldObject, userInfo: user } = request;
      if (resource.group !== RBAC_GROUP || object === undefined || request.subResource !== '') return;
      if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return;
      const context = { user, resolver, authorizer };
      if (oldObject !== undefined && onlyGarbageCollectorFieldsChange(object, oldObject)) return;
      if (ROLE_KINDS.has(resource.resource)) {
        const error = await checkRoleWrite(context, { ...object, kind: kind.kind });
        if (error) throw error;
      } else if (BINDING_KINDS.has(resource.resource)) {
        const error = await checkBindingWrite(context, { ...object, kind: kind.kind });
        if (error) throw error;
      }
    },
  };
}
