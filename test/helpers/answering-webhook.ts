/**
 * An admission and conversion webhook for recorded answers (a fixture with `"webhook": true`): served over
 * HTTPS by the test, with a fixed answer for each path, so that kube-apiserver and capstan are
 * asked the same thing and told the same thing. Steps name it by placeholders: WEBHOOK_URL and
 * WEBHOOK_CA_BUNDLE (webhookSubstitutions).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resetConnection, sendJson, startHttpsFixture, type HttpsFixture } from '../server/authn/https-fixture';

interface Review {
  readonly apiVersion?: string;
  readonly request?: { readonly uid?: string; readonly object?: { metadata?: { labels?: Record<string, string> } } };
}

const base64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');

/** An allowing response that patches the object with `patch` (operations, or text sent as it is). */
const jsonPatch = (patch: unknown) => ({ allowed: true, patchType: 'JSONPatch', patch: base64(patch) });

/** The response part of each path's answer; undefined for the paths that answer otherwise. */
function responseFor(path: string, review: Review): Record<string, unknown> | undefined {
  const labels = review.request?.object?.metadata?.labels;
  switch (path) {
    case '/allow':
      return { allowed: true };
    case '/deny':
      return { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'denied by the test webhook' } };
    case '/deny-bare':
      return { allowed: false };
    case '/deny-invalid':
      return {
        allowed: false,
        status: {
          code: 422,
          reason: 'Invalid',
          message: 'the test webhook finds it invalid',
          details: { causes: [{ field: 'data.x', message: 'not allowed' }] },
        },
      };
    case '/deny-code-only':
      return { allowed: false, status: { code: 409 } };
    case '/warn':
      return { allowed: true, warnings: ['first warning', 'second "quoted" warning'] };
    case '/patch-label':
      return jsonPatch(
        labels === undefined
          ? [{ op: 'add', path: '/metadata/labels', value: { patched: 'yes' } }]
          : [{ op: 'add', path: '/metadata/labels/patched', value: 'yes' }],
      );
    case '/patch-not-json':
      return jsonPatch('not json');
    case '/patch-bad-op':
      return jsonPatch([{ op: 'nope', path: '/data/x', value: 'y' }]);
    case '/patch-missing-path':
      return jsonPatch([{ op: 'replace', path: '/data/none', value: 'y' }]);
    case '/patch-without-type':
      return { allowed: true, patch: base64([{ op: 'add', path: '/data', value: { x: 'y' } }]) };
    case '/patch-invalid-object':
      return jsonPatch([{ op: 'add', path: '/data', value: 'text' }]);
    case '/patch-name':
      return jsonPatch([{ op: 'replace', path: '/metadata/name', value: 'renamed' }]);
    case '/patch-on-validating':
      return jsonPatch([{ op: 'add', path: '/data', value: { x: 'y' } }]);
  }
  return undefined;
}

interface ConversionRequest {
  readonly uid?: string;
  readonly desiredAPIVersion?: string;
  readonly objects?: readonly { apiVersion?: string; metadata?: { name?: string; labels?: Record<string, string> } }[];
}

/** A ConversionReview's answer by path: `/convert` converts by setting the apiVersion, the others go wrong as named. */
function conversionAnswer(path: string, request: ConversionRequest): Record<string, unknown> {
  const objects = request.objects ?? [];
  const converted = objects.map((object) => ({ ...object, apiVersion: request.desiredAPIVersion }));
  const success = { status: 'Success' };
  const response = (fields: Record<string, unknown>) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: { uid: request.uid, ...fields },
  });
  switch (path) {
    case '/convert-fail':
      return response({ result: { status: 'Failure', message: 'the test webhook cannot convert this' } });
    case '/convert-wrong-uid':
      return response({ convertedObjects: converted, result: success, uid: 'other' });
    case '/convert-too-few':
      return response({ convertedObjects: converted.slice(1), result: success });
    case '/convert-rename':
      return response({
        convertedObjects: converted.map((object) => ({ ...object, metadata: { ...object.metadata, name: 'renamed' } })),
        result: success,
      });
    case '/convert-relabel':
      return response({
        convertedObjects: converted.map((object) => ({
          ...object,
          metadata: { ...object.metadata, labels: { ...object.metadata?.labels, converted: 'yes' } },
        })),
        result: success,
      });
    case '/convert-unconverted':
      return response({ convertedObjects: objects, result: success });
    case '/convert-no-result':
      return response({ convertedObjects: converted });
  }
  return response({ convertedObjects: converted, result: success });
}

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = new URL(req.url ?? '/', 'https://webhook').pathname;
  let review: Review = {};
  try {
    review = JSON.parse(body) as Review;
  } catch {
    // An unreadable review is answered as any other: by path.
  }
  const { kind, request } = review as { kind?: string; request?: ConversionRequest };
  if (kind === 'ConversionReview') return sendJson(res, 200, conversionAnswer(path, request ?? {}));
  const uid = review.request?.uid;
  const reviewOf = (response: Record<string, unknown>, apiVersion = 'admission.k8s.io/v1') => ({
    apiVersion,
    kind: 'AdmissionReview',
    response: { uid, ...response },
  });
  const response = responseFor(path, review);
  if (response !== undefined) return sendJson(res, 200, reviewOf(response));
  switch (path) {
    case '/wrong-uid':
      return sendJson(res, 200, reviewOf({ allowed: true, uid: 'not-the-request' }));
    case '/no-response':
      return sendJson(res, 200, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' });
    case '/wrong-kind':
      return sendJson(res, 200, { ...reviewOf({ allowed: true }), kind: 'Foo' });
    case '/wrong-version':
      return sendJson(res, 200, reviewOf({ allowed: true }, 'admission.k8s.io/v1beta1'));
    case '/null':
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end('null');
    case '/not-json':
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end('this is not json');
    case '/http-500':
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      return void res.end('the webhook broke');
    case '/http-403-status':
      return sendJson(res, 403, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: 'the webhook refuses you',
        reason: 'Forbidden',
        code: 403,
      });
    case '/reset':
      return resetConnection(req);
  }
  sendJson(res, 404, { message: `no answer at ${path}` });
}

export async function startAnsweringWebhook(): Promise<HttpsFixture> {
  return startHttpsFixture(answer);
}

/** The placeholders a webhook fixture's steps use, with what they stand for. */
export function webhookSubstitutions(webhook: HttpsFixture): Readonly<Record<string, string>> {
  return { WEBHOOK_URL: webhook.url, WEBHOOK_CA_BUNDLE: Buffer.from(webhook.caPem).toString('base64') };
}
