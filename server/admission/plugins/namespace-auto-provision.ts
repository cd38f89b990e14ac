/**
 * The NamespaceAutoProvision plugin: creating an object in a namespace that does not exist
 * creates the namespace first, as the server itself (through every step a client's create of
 * it takes, admission included), so that NamespaceLifecycle after it finds the namespace. A dry
 * run creates nothing, and so is refused by NamespaceLifecycle as without the plugin. A failed
 * creation refuses the request with its error.
 */
import type { ObjectStorage } from '../../../storage/objects/types';
import { forbidden } from '../../status/catalogue';
import { getCached } from '../lookup';
import { refusedName } from '../refused-name';
import type { AdmissionPlugin } from '../types';

/** Creates the namespace `name` as the server; one that exists already is no error. */
export type NamespaceCreator = (name: string) => Promise<void>;

export function namespaceAutoProvisionPlugin(
  namespaces: ObjectStorage,
  createNamespace: NamespaceCreator,
): AdmissionPlugin {
  return {
    name: 'NamespaceAutoProvision',
    async admit(attributes) {
      if (attributes.operation !== 'CREATE' || attributes.dryRun || attributes.namespace === '') return;
      if (attributes.kind.group === '' && attributes.kind.kind === 'Namespace') return;
      try {
        if ((await getCached(namespaces, attributes.namespace)) !== undefined) return;
        await createNamespace(attributes.namespace);
      } catch (error) {
        throw forbidden(attributes.resource, refusedName(attributes), (error as Error).message);
      }
    },
  };
}
