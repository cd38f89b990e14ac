/**
 * The NamespaceLifecycle plugin: nothing is created in a namespace that does not exist or is
 * being terminated, and the system namespaces cannot be deleted. Like the reference's, it is a
 * mutating plugin, first in the chain: a create in a terminating namespace is refused as such
 * before later plugins look at the namespace's content (ServiceAccount would otherwise refuse it
 * for a default service account the namespace controller already deleted, and controllers,
 * which ignore the NamespaceTerminating refusal, would report that one as a failure).
 */
import { ObjectError } from '../../storage/errors';
import type { ObjectStorage } from '../../storage/objects/types';
import { forbidden, notFound } from '../status/catalogue';
import { StatusError } from '../status/status-error';
import { getCached } from './lookup';
import { refusedName } from './refused-name';
import type { AdmissionAttributes, AdmissionPlugin } from './types';

import { qualifiedResource } from '../../api/identity';
import type { KubeObject } from '../../api/objects';
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/** The namespace from the cache, or from the store when the cache has not seen it yet. */
export async function findNamespace(namespaces: ObjectStorage, name: string): Promise<KubeObject | undefined> {
  const cached = await getCached(namespaces, name);
  if (cached !== undefined) return cached;
  // A namespace created a moment ago may not be in the cache yet: confirm a miss with a consistent read.
  try {
    return await namespaces.get({ name }, { resourceVersion: '' });
  } catch (error) {
    if (!(error instanceof ObjectError && error.reason === 'NotFound')) throw error;
    return undefined;
  }
}

export function namespaceLifecycle(namespaces: ObjectStorage): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    async admit(request: AdmissionAttributes) {
      const resource = { group: request.resource.group, resource: request.resource.resource };
      if (resource.group === '' && resource.resource === 'namespaces') {
        if (request.operation === 'DELETE' && IMMORTAL_NAMESPACES.has(request.name)) {
          throw forbidden(resource, request.name, 'this namespace may not be deleted');
        }
        return;
      }
      // Cluster-scoped kinds have no namespace to check.
      if (request.operation !== 'CREATE' || request.namespace === '') return;
      const namespace = await findNamespace(namespaces, request.namespace);
      if (!namespace) throw notFound({ group: '', resource: 'namespaces' }, request.namespace);
      if (namespace.metadata.deletionTimestamp) {
        const message = `unable to create new content in namespace ${request.namespace} because it is being terminated`;
        const name = refusedName(request);
        throw new StatusError({
          code: 403,
          reason: 'Forbidden',
          message: `${qualifiedResource(resource)} "${name}" is forbidden: ${message}`,
          details: {
            name,
            group: resource.group,
            kind: resource.resource,
            causes: [
              {
                reason: 'NamespaceTerminating',
                message: `namespace ${request.namespace} is being terminated`,
                field: 'metadata.namespace',
              },
            ],
          },
        });
      }
    },
  };
}
