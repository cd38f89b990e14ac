/**
 * A ConversionReview webhook the tests serve over real HTTPS (a CA and serving certificate
 * issued for 127.0.0.1): converts Widgets between example.com/v1 (`spec.size: "3"`, a string)
 * and example.com/v2 (`spec.size: 3`, a number), and counts the reviews it answered. Its
 * certificate also names it as a Service's DNS name, for webhooks given by Service.
 * `misbehave` makes it answer wrongly, to see the server's complaints.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCa, issueLeaf } from '../../../server/pki/certificates';

/** The webhook's name as the Service `converter` in namespace `webhooks` (its certificate carries it). */
export const SERVICE_DNS_NAME = 'converter.webhooks.svc';

/**
 * What the EndpointSlice controller writes for a Service whose one ready address is this
 * webhook's, 127.0.0.1:`port`; the API refuses that loopback address, so tests store it directly.
 */
export function endpointSliceOf(service: string, namespace: string, port: number) {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: service, namespace, labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'https', port, protocol: 'TCP' }],
  };
}

export type Misbehaviour = 'none' | 'wrong-uid' | 'failure' | 'wrong-version' | 'rename';

export interface ConversionWebhook {
  readonly url: string;
  /** The CA bundle a CRD's clientConfig.caBundle takes (base64 PEM). */
  readonly caBundle: string;
  readonly reviews: number;
  misbehave: Misbehaviour;
  close(): Promise<void>;
}

type Json = Record<string, any>; // review JSON as the webhook reads it

function convert(object: Json, desired: string): Json {
  const spec = { ...(object.spec ?? {}) };
  if (desired.endsWith('/v2') && typeof spec.size === 'string') spec.size = Number(spec.size);
  if (desired.endsWith('/v1') && typeof spec.size === 'number') spec.size = String(spec.size);
  return {
    ...object,
    apiVersion: desired,
    spec,
    metadata: { ...object.metadata, labels: { ...(object.metadata?.labels ?? {}), converted: 'yes' } },
  };
}

export async function startConversionWebhook(): Promise<ConversionWebhook> {
  const ca = await issueCa({ commonName: 'webhook-ca', validDays: 1 });
  const leaf = await issueLeaf({
    ca,
    subject: 'CN=webhook',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
    dnsNames: [SERVICE_DNS_NAME],
    validDays: 1,
  });
  let reviews = 0;
  const state = { misbehave: 'none' as Misbehaviour };
  const server: Server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      reviews++;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      const { uid, desiredAPIVersion, objects } = review.request;
      const converted = (objects as Json[]).map((object) =>
        convert(object, state.misbehave === 'wrong-version' ? 'example.com/v9' : desiredAPIVersion),
      );
      if (state.misbehave === 'rename')
        for (const object of converted) object.metadata = { ...object.metadata, name: 'other' };
      const response =
        state.misbehave === 'failure'
          ? { uid, result: { status: 'Failure', message: 'cannot convert this one' } }
          : {
              uid: state.misbehave === 'wrong-uid' ? 'nope' : uid,
              result: { status: 'Success' },
              convertedObjects: converted,
            };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/convert`,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    get reviews() {
      return reviews;
    },
    get misbehave() {
      return state.misbehave;
    },
    set misbehave(value: Misbehaviour) {
      state.misbehave = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
