/**
 * The three unconditional plugins: AlwaysAdmit (admits everything; deprecated), AlwaysDeny
 * (refuses every write; deprecated, for tests) and AlwaysPullImages (every container of a Pod
 * pulls its image at each start, so a private image needs valid credentials every time).
 */
import { refusedName } from '../refused-name';
import { forbidden } from '../../status/catalogue';
import type { AdmissionPlugin } from '../types';

export function alwaysAdmitPlugin(): AdmissionPlugin {
  return { name: 'AlwaysAdmit', async validate() {} };
}

export function alwaysDenyPlugin(): AdmissionPlugin {
  return {
    name: 'AlwaysDeny',
    async validate(attributes) {
      throw forbidden(attributes.resource, refusedName(attributes), 'admission control is denying all modifications');
    },
  };
}

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

export function alwaysPullImagesPlugin(): AdmissionPlugin {
  return {
    name: 'AlwaysPullImages',
    async admit(attributes) {
      if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return;
      if (
        attributes.object === undefined ||
        attributes.resource.group !== '' ||
        attributes.resource.resource !== 'pods'
      )
        return;
      if (attributes.subResource !== '' && attributes.subResource !== 'ephemeralcontainers') return;
      const spec = (attributes.object.spec ?? {}) as Record<string, unknown>;
      for (const list of CONTAINER_LISTS) {
        for (const container of Array.isArray(spec[list]) ? (spec[list] as Record<string, unknown>[]) : []) {
          if (container !== null && typeof container === 'object') container.imagePullPolicy = 'Always';
        }
      }
    },
  };
}
