/**
 * A CustomResourceDefinition's conversion as kube-apiserver 1.34.4 checks it
 * (fixtures/conversion-validation.json; each create sent there, each update's stored definition
 * written straight into its etcd and then sent with new ConversionReview versions and a label):
 * the strategy; for a webhook, exactly one of a URL (read as Go reads it: https, a host, no user
 * information, fragment or query) and a service (its name and namespace reported where the
 * reference swaps them, its port and path), and ConversionReview versions unique, DNS labels, one
 * of them a version the server sends unless the stored definition named none such; for no
 * webhook, neither. Paths name the reference's internal fields.
 *
 * The webhook's caBundle: never checked on create (the creates with bad bundles are controls that
 * pass either way); on an update of an established definition (as the reference's had become
 * before each update was sent), checked unless the stored bundle was itself invalid.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from '../registry/gated-fields/write-path';
import recorded from './fixtures/conversion-validation.json';

const crds = typeOf('apiextensions.k8s.io', 'customresourcedefinitions');

test.each(Object.entries(recorded.creates))('create %s', (_id, { object, causes }) => {
  expect(created(crds, object as KubeObject, {}).errors).toEqual(causes);
});

test.each(Object.entries(recorded.updates))('update %s', (_id, { stored, conversionReviewVersions, causes }) => {
  const old = created(crds, stored as KubeObject, {}).object;
  const update = updated(
    crds,
    old,
    (next) => {
      (
        next.spec as { conversion: { webhook: { conversionReviewVersions: string[] } } }
      ).conversion.webhook.conversionReviewVersions = conversionReviewVersions;
      next.metadata.labels = { changed: 'yes' };
    },
    {},
  );
  expect(update.errors).toEqual(causes);
});

test.each(Object.entries(recorded.caBundleUpdates))('update %s', (_id, { stored, caBundle, causes }) => {
  const old = created(crds, stored as KubeObject, {}).object;
  old.status = { ...(old.status as object), conditions: [{ type: 'Established', status: 'True' }] };
  const update = updated(
    crds,
    old,
    (next) => {
      (
        next.spec as { conversion: { webhook: { clientConfig: { caBundle: string } } } }
      ).conversion.webhook.clientConfig.caBundle = caBundle;
      next.metadata.labels = { changed: 'yes' };
    },
    {},
  );
  expect(update.errors).toEqual(causes);
});
