/**
 * The ClusterTrustBundleAttest plugin: a ClusterTrustBundle that names a signer speaks for it,
 * so creating or updating one needs the `attest` verb on that signer (the resource `signers` of
 * certificates.k8s.io, by the signer name or its domain's wildcard `<domain>/*`). A bundle
 * without a signer name, and an update that only changes the fields the garbage collector
 * manages, need nothing. The plugin does nothing while the ClusterTrustBundle feature is off.
 */
import type { Authorizer } from '../../authz/types';
import { forbidden } from '../../status/catalogue';
import { onlyGarbageCollectorFieldsChange } from '../garbage-collector-fields';
import { refusedName } from '../refused-name';
import type { AdmissionPlugin } from '../types';
import { mayUseSigner } from './certificates';

export function clusterTrustBundleAttestPlugin(authorizer: Authorizer, featureEnabled: boolean): AdmissionPlugin {
  return {
    name: 'ClusterTrustBundleAttest',
    async validate(attributes) {
      if (!featureEnabled) return;
      if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return;
      if (attributes.resource.group !== 'certificates.k8s.io' || attributes.resource.resource !== 'clustertrustbundles')
        return;
      const object = attributes.object!;
      const signerName = (object.spec as { signerName?: unknown } | undefined)?.signerName;
      if (typeof signerName !== 'string' || signerName === '') return;
      const old = attributes.oldObject;
      if (attributes.operation === 'UPDATE' && old !== undefined && onlyGarbageCollectorFieldsChange(object, old))
        return;
      if (!(await mayUseSigner(authorizer, attributes.userInfo, 'attest', signerName)))
        throw forbidden(
          attributes.resource,
          refusedName(attributes),
          `user not permitted to attest for signerName ${JSON.stringify(signerName)}`,
        );
    },
  };
}
