/**
 * The OwnerReferencesPermissionEnforcement plugin: the garbage collector deletes an object when
 * its owners are gone, and blocks an owner's foreground deletion on the objects that say so, so
 * owner references are powers of their own. Changing an object's owner references on an update
 * needs the right to delete the object (a create needs nothing more); adding or turning on
 * `blockOwnerDeletion` needs `update` of the owner's `finalizers` subresource, resolved from the
 * reference's apiVersion and kind to the resource serving them. A pod's status is exempt, as the
 * kubelet writes it.
 *
 * The denials carry the authorizer's reason and, as the reference prints its authorizer's
 * error, `<nil>`: capstan's authorizers fold their errors into the reason.
 */
import { groupVersionString, parseGroupVersion, type GroupVersionKind } from '../../../api/identity';
import type { KubeObject, OwnerReference } from '../../../api/objects';
import type { Attributes, Authorizer } from '../../authz/types';
import type { ResourceType } from '../../registry/types';
import { forbidden } from '../../status/catalogue';
import { deepEqual } from '../../status/field-errors';
import { refusedName } from '../refused-name';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

/** The served type of a kind in a group-version (the reference's REST mapping), if any. */
export type ServedKindLookup = (gvk: GroupVersionKind) => ResourceType | undefined;

const ownersOf = (object: KubeObject | undefined): readonly OwnerReference[] => object?.metadata.ownerReferences ?? [];

function changesOwners(attributes: AdmissionAttributes): boolean {
  const owners = ownersOf(attributes.object);
  if (attributes.oldObject === undefined) return owners.length > 0;
  const old = ownersOf(attributes.oldObject);
  return owners.length !== old.length || owners.some((owner, i) => !deepEqual(owner, old[i]));
}

/** The references that block their owner's deletion now and did not before (by uid). */
function newlyBlocking(attributes: AdmissionAttributes): OwnerReference[] {
  const wasBlocking = new Map(ownersOf(attributes.oldObject).map((owner) => [owner.uid, owner.blockOwnerDeletion]));
  return ownersOf(attributes.object).filter(
    (owner) => owner.blockOwnerDeletion === true && wasBlocking.get(owner.uid) !== true,
  );
}

export function ownerReferencesPermissionEnforcementPlugin(
  authorizer: Authorizer,
  servedKind: ServedKindLookup,
): AdmissionPlugin {
  const refuse = (attributes: AdmissionAttributes, reason: string) =>
    forbidden(attributes.resource, refusedName(attributes), reason);
  const ask = (attributes: AdmissionAttributes, record: Omit<Attributes, 'user' | 'isResourceRequest' | 'path'>) =>
    authorizer.authorize({ user: attributes.userInfo, isResourceRequest: true, path: '', ...record });

  /** The finalizers update `owner` asks for; an Error when its kind is not served. */
  function finalizersOf(attributes: AdmissionAttributes, owner: OwnerReference) {
    const groupVersion = parseGroupVersion(owner.apiVersion);
    if (groupVersion === undefined) throw new Error(`unexpected GroupVersion string: ${owner.apiVersion}`);
    const { group, version } = groupVersion;
    const type = servedKind({ group, version, kind: owner.kind });
    if (type === undefined)
      throw new Error(`no matches for kind "${owner.kind}" in version "${groupVersionString({ group, version })}"`);
    return {
      verb: 'update',
      namespace: type.namespaced ? attributes.namespace : '',
      apiGroup: type.group,
      apiVersion: version,
      resource: type.resource,
      subresource: 'finalizers',
      name: owner.name,
    };
  }

  return {
    name: 'OwnerReferencesPermissionEnforcement',
    async validate(attributes) {
      if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return;
      const { group, version, resource } = attributes.requestResource;
      if (group === '' && resource === 'pods' && attributes.subResource === 'status') return;
      if (!changesOwners(attributes)) return;
      if (attributes.operation === 'UPDATE') {
        const { decision, reason } = await ask(attributes, {
          verb: 'delete',
          namespace: attributes.namespace,
          apiGroup: group,
          apiVersion: version,
          resource,
          subresource: attributes.subResource,
          name: attributes.name,
        });
        if (decision !== 'allow')
          throw refuse(attributes, `cannot set an ownerRef on a resource you can't delete: ${reason}, <nil>`);
      }
      const blocking = newlyBlocking(attributes);
      if (blocking.length === 0) return;
      const finalizeAnything = await ask(attributes, {
        verb: 'update',
        namespace: '',
        apiGroup: '*',
        apiVersion: '*',
        resource: '*',
        subresource: 'finalizers',
        name: '*',
      });
      if (finalizeAnything.decision === 'allow') return;
      for (const owner of blocking) {
        let record;
        try {
          record = finalizersOf(attributes, owner);
        } catch (error) {
          throw refuse(
            attributes,
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${owner.apiVersion} Kind ${owner.kind}: ${(error as Error).message}`,
          );
        }
        const { decision, reason } = await ask(attributes, record);
        if (decision !== 'allow')
          throw refuse(
            attributes,
            `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${reason}, <nil>`,
          );
      }
    },
  };
}
