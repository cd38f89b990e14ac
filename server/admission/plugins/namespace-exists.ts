/**
 * The NamespaceExists plugin: nothing is created, changed or deleted in a namespace that does
 * not exist (NamespaceLifecycle, on by default, checks creates only and also guards terminating
 * namespaces). The reference's NotFound for the namespace.
 */
import type { ObjectStorage } from '../../../storage/objects/types';
import { notFound } from '../../status/catalogue';
import { findNamespace } from '../namespace-lifecycle';
import type { AdmissionPlugin } from '../types';

export function namespaceExistsPlugin(namespaces: ObjectStorage): AdmissionPlugin {
  return {
    name: 'NamespaceExists',
    async validate(attributes) {
      if (
        attributes.namespace === '' ||
        (attributes.resource.group === '' && attributes.resource.resource === 'namespaces')
      )
        return;
      if (attributes.operation === 'CONNECT') return;
      if ((await findNamespace(namespaces, attributes.namespace)) === undefined)
        throw notFound({ group: '', resource: 'namespaces' }, attributes.namespace);
    },
  };
}
