/** The conversion webhook client against a webhook the test serves over HTTPS. */
import { convertThroughWebhook } from '../../../server/apiextensions/conversion-webhook';
import type { CustomResourceConversion } from '../../../server/apiextensions/crd-types';
import { StatusError } from '../../../server/status/status-error';
import { openTestStore, type TestStore } from '../../helpers/in-process-api';
import {
  endpointSliceOf,
  SERVICE_DNS_NAME,
  startConversionWebhook,
  type ConversionWebhook,
} from './conversion-webhook-server';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { serviceResolver } from '../../../server/proxy/service-endpoint';

let webhook: ConversionWebhook;
let conversion: CustomResourceConversion;

beforeAll(async () => {
  webhook = await startConversionWebhook();
  conversion = {
    strategy: 'Webhook',
    webhook: { clientConfig: { url: webhook.url, caBundle: webhook.caBundle }, conversionReviewVersions: ['v1'] },
  };
});

afterAll(async () => {
  await webhook.close();
});

afterEach(() => {
  webhook.misbehave = 'none';
});

const original = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default', uid: 'u-1', resourceVersion: '7', labels: { app: 'w' } },
  spec: { size: '3' },
};
const toV2 = { apiVersion: 'example.com/v2', kind: 'Widget' };

test('objects round-trip through the webhook; metadata stays but for the labels the webhook set', async () => {
  const [v2] = await convertThroughWebhook(conversion, [original], toV2);
  expect(v2).toEqual({
    ...original,
    apiVersion: 'example.com/v2',
    spec: { size: 3 },
    metadata: { ...original.metadata, labels: { app: 'w', converted: 'yes' } },
  });
  const [back] = await convertThroughWebhook(conversion, [v2], { apiVersion: 'example.com/v1', kind: 'Widget' });
  expect(back.spec).toEqual(original.spec);
  expect(webhook.reviews).toBeGreaterThanOrEqual(2);
});

test.each<[ConversionWebhook['misbehave'], string]>([
  ['wrong-uid', 'conversion webhook for example.com/v1, Kind=Widget failed: expected response.uid='],
  ['failure', 'conversion webhook for example.com/v1, Kind=Widget failed: cannot convert this one'],
  [
    'wrong-version',
    'returned invalid object at index 0: invalid groupVersion (expected example.com/v2, received example.com/v9)',
  ],
  ['rename', 'returned invalid object: must have the same name: w != other'],
])(
  'a webhook answering with %s is a 500 saying so (a bare error, as the reference answers)',
  async (misbehave, text) => {
    webhook.misbehave = misbehave;
    const failure = await convertThroughWebhook(conversion, [original], toV2).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StatusError);
    expect((failure as StatusError).status.code).toBe(500);
    expect((failure as StatusError).status.reason).toBeUndefined();
    expect((failure as StatusError).status.message).toContain(text);
  },
);

test('a webhook whose certificate the CA bundle does not vouch for is refused', async () => {
  const untrusted: CustomResourceConversion = {
    ...conversion,
    webhook: { clientConfig: { url: webhook.url }, conversionReviewVersions: ['v1'] },
  };
  const failure = await convertThroughWebhook(untrusted, [original], toV2).catch((error: unknown) => error);
  expect((failure as StatusError).status.message).toMatch(
    /^conversion webhook for example.com\/v1, Kind=Widget failed: Post "https:\/\/127.0.0.1:\d+\/convert": /,
  );
});

/** The store's kinds by group and resource, the webhook's port, and the name and namespace of its Service. */
function serviceSetting(testStore: TestStore) {
  const storageOf = (group: string, resource: string) =>
    testStore.storageFor(BUILTIN_TYPES.find((type) => type.group === group && type.resource === resource)!);
  const [name, namespace] = SERVICE_DNS_NAME.split('.');
  return { storageOf, port: Number(new URL(webhook.url).port), name, namespace };
}

test("a webhook given by Service is reached at its endpoints, its certificate checked for the Service's name", async () => {
  const testStore = await openTestStore();
  try {
    const { storageOf, port, name, namespace } = serviceSetting(testStore);
    await storageOf('', 'services').create(
      { namespace, name },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace },
        spec: { ports: [{ name: 'https', port: 8443, targetPort: port }] },
      },
    );
    const byService: CustomResourceConversion = {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { namespace, name, path: '/convert', port: 8443 }, caBundle: webhook.caBundle },
        conversionReviewVersions: ['v1'],
      },
    };
    // No endpoints yet: nowhere to send the review.
    const unreachable = await convertThroughWebhook(
      byService,
      [original],
      toV2,
      serviceResolver(storageOf, true),
    ).catch((error: unknown) => error);
    expect((unreachable as StatusError).status).toMatchObject({
      code: 500,
      message: expect.stringContaining(`cannot find endpointslices for service/${name} in "${namespace}"`),
    });
    await storageOf('discovery.k8s.io', 'endpointslices').create(
      { namespace, name },
      endpointSliceOf(name, namespace, port),
    );
    const [v2] = await convertThroughWebhook(byService, [original], toV2, serviceResolver(storageOf, true));
    expect(v2.spec).toEqual({ size: 3 });
    // A certificate without the Service's name is refused.
    const wrongName = {
      ...byService,
      webhook: {
        ...byService.webhook!,
        clientConfig: {
          ...byService.webhook!.clientConfig,
          service: { namespace: 'webhooks', name: 'other', path: '/convert', port: 8443 },
        },
      },
    };
    await storageOf('', 'services').create(
      { namespace, name: 'other' },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'other', namespace },
        spec: { ports: [{ name: 'https', port: 8443, targetPort: port }] },
      },
    );
    await storageOf('discovery.k8s.io', 'endpointslices').create(
      { namespace, name: 'other' },
      endpointSliceOf('other', namespace, port),
    );
    const refused = await convertThroughWebhook(wrongName, [original], toV2, serviceResolver(storageOf, true)).catch(
      (error: unknown) => error,
    );
    expect((refused as StatusError).status.message).toContain("Hostname/IP does not match certificate's altnames");
  } finally {
    await testStore.close();
  }
});

test('without aggregator routing, a webhook given by Service is reached at its cluster IP and port', async () => {
  const testStore = await openTestStore();
  try {
    const { storageOf, port, name, namespace } = serviceSetting(testStore);
    const byService = (servicePort: number): CustomResourceConversion => ({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { namespace, name, path: '/convert', port: servicePort }, caBundle: webhook.caBundle },
        conversionReviewVersions: ['v1'],
      },
    });
    // No EndpointSlice: the cluster IP (here the loopback, where the webhook listens) is all there is.
    await storageOf('', 'services').create(
      { namespace, name },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace },
        spec: { type: 'ClusterIP', clusterIP: '127.0.0.1', ports: [{ name: 'https', port, targetPort: 1 }] },
      },
    );
    const clusterIP = serviceResolver(storageOf, false);
    const [v2] = await convertThroughWebhook(byService(port), [original], toV2, clusterIP);
    expect(v2.spec).toEqual({ size: 3 });
    const noPort = await convertThroughWebhook(byService(port + 1), [original], toV2, clusterIP).catch(
      (error: unknown) => error,
    );
    expect((noPort as StatusError).status.message).toContain(`no service port ${port + 1} found for service "${name}"`);
  } finally {
    await testStore.close();
  }
});
