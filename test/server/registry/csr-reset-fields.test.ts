/**
 * Who owns what of a CertificateSigningRequest, as kube-apiserver 1.34.4 recorded it through a
 * create, a label patch, an approval, a refused status write and a main apply
 * (fixtures/recorded-csr-reset-fields.json): the CSR's own store resets spec and status, so no
 * write to the main resource, apply or not, owns any of the spec it sends; they own their labels.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { inManagerOrder, withEntriesInManagerOrder } from '../../helpers/managed-fields-order';

type Json = Record<string, unknown>;

interface Step {
  readonly method: string;
  /** Below the collection. */
  readonly path: string;
  readonly body: unknown;
  readonly type: string;
  /** Code and managedFields without their times, or the refusal's message. */
  readonly answer: Json;
}

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const steps = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'recorded-csr-reset-fields.json'), 'utf8'),
) as readonly Step[];

const server = inProcessServerForSuite([], 30_000);

test('each write owns what the reference records it owning', async () => {
  const answers: Json[] = [];
  for (const step of steps) {
    const result = await server.request(step.method, `${CSRS}${step.path}`, {
      body: JSON.stringify(step.body),
      headers: { 'Content-Type': step.type },
    });
    const body = result.json<Json>();
    const metadata = body.metadata as Json | undefined;
    answers.push(
      result.status >= 300
        ? { code: result.status, message: body.message }
        : {
            code: result.status,
            managedFields: inManagerOrder(
              ((metadata?.managedFields as Json[] | undefined) ?? []).map(({ time: _time, ...entry }) => entry),
            ),
          },
    );
  }
  expect(answers).toEqual(steps.map(({ answer }) => withEntriesInManagerOrder(answer)));
});
