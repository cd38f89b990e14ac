/**
 * The three unconditional plugins: AlwaysAdmit (admits everything; deprecated), AlwaysDeny
 * (refuses every write; deprecated, for tests) and AlwaysPullImages (every container and image
 * volume of a Pod pulls its image at each start, so a private image needs valid credentials
 * every time).
 */
import { goAggregate } from '../../../api/go-json-syntax';
import type { KubeObject } from '../../../api/objects';
import { forbidden } from '../../status/catalogue';
import { fieldErrorText } from '../../status/field-error';
import { FieldPath, notSupported } from '../../status/field-errors';
import { StatusError } from '../../status/status-error';
import { writes } from '../lookup';
import { refusedName } from '../refused-name';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

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

type Entry = Record<string, unknown>;

function entries(spec: Entry, list: string): Entry[] {
  const items = spec[list];
  return Array.isArray(items) ? items.filter((item): item is Entry => item !== null && typeof item === 'object') : [];
}

function specOf(pod: KubeObject | undefined): Entry {
  const spec = pod?.spec;
  return spec !== null && typeof spec === 'object' ? (spec as Entry) : {};
}

/** Every container of the pod with its path, in the order the reference visits them. */
function containersOf(pod: KubeObject | undefined): { container: Entry; path: FieldPath }[] {
  const spec = specOf(pod);
  return CONTAINER_LISTS.flatMap((list) =>
    entries(spec, list).map((container, i) => ({ container, path: FieldPath.root('spec', list).index(i) })),
  );
}

/** The image volumes' sources (`volumes[].image`), with their paths. */
function imageVolumesOf(pod: KubeObject | undefined): { image: Entry; path: FieldPath }[] {
  return entries(specOf(pod), 'volumes').flatMap((volume, i) => {
    const image = volume.image;
    return image !== null && typeof image === 'object'
      ? [{ image: image as Entry, path: FieldPath.root('spec', 'volumes').index(i).child('image') }]
      : [];
  });
}

/**
 * What the plugin leaves alone, as the reference's does: anything but a pod's own create or
 * update (its subresources, ephemeral containers among them), and an update that brings no
 * image the pod did not have, so a pod stored before the plugin was on may still be relabelled.
 */
function ignored(attributes: AdmissionAttributes): boolean {
  if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return true;
  if (!writes(attributes, '', 'pods') || attributes.object === undefined) return true;
  if (attributes.operation !== 'UPDATE') return false;
  const had = new Set(containersOf(attributes.oldObject).map(({ container }) => container.image));
  return containersOf(attributes.object).every(({ container }) => had.has(container.image));
}

export function alwaysPullImagesPlugin(): AdmissionPlugin {
  return {
    name: 'AlwaysPullImages',
    async admit(attributes) {
      if (ignored(attributes)) return;
      for (const { container } of containersOf(attributes.object)) container.imagePullPolicy = 'Always';
      for (const { image } of imageVolumesOf(attributes.object)) image.pullPolicy = 'Always';
    },
    // What a later mutating step (a webhook) set back is refused. The reference returns these
    // refusals as one aggregated error, which its handler answers with a 500; each is a 403.
    async validate(attributes) {
      if (ignored(attributes)) return;
      const errors = [
        ...containersOf(attributes.object)
          .filter(({ container }) => container.imagePullPolicy !== 'Always')
          .map(({ container, path }) =>
            notSupported(path.child('imagePullPolicy'), container.imagePullPolicy ?? '', ['Always']),
          ),
        ...imageVolumesOf(attributes.object)
          .filter(({ image }) => image.pullPolicy !== 'Always')
          .map(({ image, path }) => notSupported(path.child('pullPolicy'), image.pullPolicy ?? '', ['Always'])),
      ];
      if (errors.length === 0) return;
      const refusals = errors.map((error) =>
        forbidden({ group: '', resource: 'pods' }, refusedName(attributes), fieldErrorText(error)),
      );
      // One refusal is as it is; several read as the reference's aggregate of them.
      throw new StatusError({
        code: 403,
        reason: 'Forbidden',
        message: goAggregate(refusals.map((refusal) => refusal.message)),
        details: refusals[0].status.details,
      });
    },
  };
}
