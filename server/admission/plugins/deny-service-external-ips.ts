/**
 * The DenyServiceExternalIPs plugin: no Service gains an external IP (a way to intercept
 * traffic to any address, CVE-2020-8554). An update may keep or drop the ones it had.
 */
import type { KubeObject } from '../../../api/objects';
import { forbidden } from '../../status/catalogue';
import { writes } from '../lookup';
import { refusedName } from '../refused-name';
import type { AdmissionPlugin } from '../types';

const externalIPsOf = (service: KubeObject | undefined): string[] =>
  (service?.spec as { externalIPs?: string[] } | undefined)?.externalIPs ?? [];

export function denyServiceExternalIPsPlugin(): AdmissionPlugin {
  return {
    name: 'DenyServiceExternalIPs',
    async validate(attributes) {
      if (
        (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') ||
        !writes(attributes, '', 'services')
      )
        return;
      const wanted = externalIPsOf(attributes.object);
      const had = new Set(externalIPsOf(attributes.oldObject));
      if (wanted.every((ip) => had.has(ip))) return;
      throw forbidden(
        { group: '', resource: 'services' },
        refusedName(attributes),
        'Use of external IPs is denied by admission control',
      );
    },
  };
}
