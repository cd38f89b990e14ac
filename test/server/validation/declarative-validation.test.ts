/**
 * The DeclarativeValidation and DeclarativeValidationTakeover gates on the fields a 1.34 server
 * validates declaratively: ReplicationController replicas and minReadySeconds (and its scale
 * subresource) and a CertificateSigningRequest's Approved and Denied conditions (set through
 * `approval`, refused through `status`). Each request is replayed against a whole replica in
 * this process under three gate settings, and must get the answer kube-apiserver v1.34.4 gave
 * under the same flags (declarative-validation.reference.json): the default (takeover off),
 * takeover on, and declarative validation off (with takeover on, which the reference accepts
 * and then ignores).
 * The mismatch counter on /metrics must read what the reference's read after the same requests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { certificateRequest } from '../../helpers/certificate-request';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

type Json = Record<string, unknown>;
/** What a write answers: a Status, or the object written (a ReplicationController, a CSR). */
interface Written {
  kind?: string;
  message?: string;
  details?: { causes?: unknown[] };
  spec: Json & { replicas?: number; template: Json & { spec: Json } };
  status: { conditions: Json[] };
}
type Answer = { status: number; message?: string; causes?: unknown[]; replicas?: number };
type Variant = 'off' | 'on' | 'dvoff';

const REFERENCE: Record<Variant, { answers: Record<string, Answer>; metrics: string[] }> = JSON.parse(
  readFileSync(join(__dirname, 'declarative-validation.reference.json'), 'utf8'),
);
const FLAGS: Record<Variant, string[]> = {
  off: [],
  on: ['--feature-gates=DeclarativeValidationTakeover=true'],
  dvoff: ['--feature-gates=DeclarativeValidation=false,DeclarativeValidationTakeover=true'],
};
const RCS = '/api/v1/namespaces/default/replicationcontrollers';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

const controller = (name: string, spec: Json, podSpec: Json = {}) => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name },
  spec: {
    selector: { app: 'x' },
    template: {
      metadata: { labels: { app: 'x' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }], ...podSpec },
    },
    ...spec,
  },
});
const decision = (type: string) => ({ type, status: 'True', reason: 'R', message: 'm' });

describe.each(['off', 'on', 'dvoff'] as Variant[])('declarative validation gates: %s', (variant) => {
  const answers: Record<string, Answer> = {};
  const tag = variant;

  const server = inProcessServerForSuite(FLAGS[variant]);

  beforeAll(async () => {
    const call = async (name: string, method: string, path: string, body: object, contentType = 'application/json') => {
      const result = await server.request(method, path, {
        body: JSON.stringify(body),
        headers: { 'Content-Type': contentType },
      });
      const answer = result.json<Written>();
      answers[name] =
        answer.kind === 'Status'
          ? { status: result.status, message: answer.message, causes: answer.details?.causes }
          : { status: result.status, replicas: answer.spec?.replicas };
      return answer;
    };
    await call('rcCreateBoth', 'POST', RCS, controller(`both-${tag}`, { replicas: -1, minReadySeconds: -1 }));
    await call('rcCreateReplicas', 'POST', RCS, controller(`rep-${tag}`, { replicas: -1 }));
    await call(
      'rcCreateMixed',
      'POST',
      RCS,
      controller(
        `mix-${tag}`,
        { replicas: -1, minReadySeconds: -1 },
        { restartPolicy: 'Never', activeDeadlineSeconds: 5 },
      ),
    );
    await call('rcCreateNullReplicas', 'POST', RCS, controller(`nul-${tag}`, { replicas: null }));
    const created = await call('rcCreateValid', 'POST', RCS, controller(`ok-${tag}`, { replicas: 1 }));
    const changed = (spec: Json, podSpec: Json = {}) => ({
      ...created,
      spec: {
        ...created.spec,
        ...spec,
        template: { ...created.spec.template, spec: { ...created.spec.template.spec, ...podSpec } },
      },
    });
    await call('rcUpdateBoth', 'PUT', `${RCS}/ok-${tag}`, changed({ replicas: -1, minReadySeconds: -1 }));
    await call(
      'rcUpdateMixed',
      'PUT',
      `${RCS}/ok-${tag}`,
      changed({ minReadySeconds: -1 }, { restartPolicy: 'Never' }),
    );
    const merge = 'application/merge-patch+json';
    await call('rcPatchNullReplicas', 'PATCH', `${RCS}/ok-${tag}`, { spec: { replicas: null } }, merge);
    await call('rcScalePut', 'PUT', `${RCS}/ok-${tag}/scale`, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: `ok-${tag}`, namespace: 'default' },
      spec: { replicas: -1 },
    });
    await call('rcScalePatch', 'PATCH', `${RCS}/ok-${tag}/scale`, { spec: { replicas: -2 } }, merge);

    const csr = await call('csrCreate', 'POST', CSRS, {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: `csr-${tag}` },
      spec: { request: certificateRequest(), signerName: 'example.com/signer', usages: ['client auth'] },
    });
    const approval = `${CSRS}/csr-${tag}/approval`;
    const withConditions = (base: Written, conditions: object[]) => ({ ...base, status: { conditions } });
    await call('csrApprovalAD', 'PUT', approval, withConditions(csr, [decision('Approved'), decision('Denied')]));
    await call('csrApprovalDA', 'PUT', approval, withConditions(csr, [decision('Denied'), decision('Approved')]));
    await call(
      'csrApprovalADA',
      'PUT',
      approval,
      withConditions(csr, [decision('Approved'), decision('Denied'), decision('Approved')]),
    );
    await call(
      'csrApprovalBadStatus',
      'PUT',
      approval,
      withConditions(csr, [{ type: 'Approved', status: 'False' }, decision('Denied')]),
    );
    // The status subresource may neither approve nor deny.
    const status = `${CSRS}/csr-${tag}/status`;
    await call('csrStatusAD', 'PUT', status, withConditions(csr, [decision('Approved'), decision('Denied')]));
    await call('csrStatusDA', 'PUT', status, withConditions(csr, [decision('Denied'), decision('Approved')]));
    const approved = await call('csrApprove', 'PUT', approval, withConditions(csr, [decision('Approved')]));
    const andDenied = withConditions(approved, [...approved.status.conditions, decision('Denied')]);
    await call('csrApprovedThenAddDenied', 'PUT', approval, andDenied);
    await call('csrStatusAfterApproveAddDenied', 'PUT', status, andDenied);
  }, 120_000);

  it.each(Object.keys(REFERENCE[variant].answers))('%s answers as the reference', (name) => {
    expect(answers[name]).toEqual(REFERENCE[variant].answers[name]);
  });

  it('counts the mismatches the reference counts, and exposes both counters', async () => {
    const metrics = (await server.request('GET', '/metrics')).body
      .split('\n')
      .filter((line) => line.includes('declarative_validation'));
    expect(metrics).toEqual(REFERENCE[variant].metrics);
  });
});
