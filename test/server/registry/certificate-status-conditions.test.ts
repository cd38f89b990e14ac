/**
 * Status writes of a CertificateSigningRequest's conditions against what kube-apiserver 1.34.4
 * stored or answered (fixtures/certificate-condition-changes.json: the conditions the approval
 * stored, those the status write sent, and what the reference kept, `<now>` where it filled in
 * the write's time, or its causes). A status write cannot reword an Approved or Denied
 * condition: when it sends as many of a type as are stored, the stored ones are kept, so the
 * reference never reaches its "updates may not modify a condition" check. Missing times are
 * filled in, a transition's from a stored condition of the same type and status.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { metaTime, type KubeObject } from '../../../api/objects';
import { fieldErrorText } from '../../../server/status/field-error';
import { certificateRequest } from '../../helpers/certificate-request';
import { writeContextWith } from '../../helpers/write-context';
import { typeOf } from './gated-fields/write-path';

type Condition = Record<string, unknown>;

interface Case {
  readonly stored: readonly Condition[];
  readonly sent: readonly Condition[];
  readonly code: number;
  readonly kept?: readonly Condition[];
  readonly causes?: readonly string[];
}

const recorded: Readonly<Record<string, Case>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'certificate-condition-changes.json'), 'utf8'),
);

const requests = typeOf('certificates.k8s.io', 'certificatesigningrequests');
const WRITE_TIME = new Date('2030-01-02T03:04:05Z');
const context = { ...writeContextWith({}), now: () => WRITE_TIME };
const spec = { request: certificateRequest(), signerName: 'example.com/signer', usages: ['client auth'] };

function withWriteTime(conditions: readonly Condition[]): Condition[] {
  return conditions.map((condition) =>
    Object.fromEntries(
      Object.entries(condition).map(([name, value]) => [name, value === '<now>' ? metaTime(WRITE_TIME) : value]),
    ),
  );
}

test.each(Object.entries(recorded))('%s', (_id, { stored, sent, code, kept, causes }) => {
  const old = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'csr' },
    spec,
    status: { conditions: structuredClone(stored) },
  } as KubeObject;
  const object = { ...structuredClone(old), status: { conditions: structuredClone(sent) } };
  requests.strategy.prepareForStatusUpdate?.(object, old, context);
  const errors = (requests.strategy.validateUpdate?.(object, old, context) ?? []).map(fieldErrorText);
  if (code >= 300) {
    expect(errors).toEqual(causes);
    return;
  }
  expect(errors).toEqual([]);
  expect((object.status as { conditions: Condition[] }).conditions).toEqual(withWriteTime(kept ?? []));
});
