/**
 * certificatesigningrequests/approval and the CSR's requester fields, through kubectl 1.33 and
 * raw HTTPS against a whole replica in this process; expectations are what a reference
 * kube-apiserver v1.34.4 answered to the same requests.
 */
import { X509Certificate } from 'node:crypto';
import { certificateRequest } from '../../helpers/certificate-request';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const JSON_BODY = { 'Content-Type': 'application/json' };

interface CSR {
  metadata: { name: string; resourceVersion?: string };
  spec: Record<string, unknown>;
  status: { conditions?: Record<string, unknown>[]; certificate?: string };
}

describe('certificatesigningrequests/approval', () => {
  const request = certificateRequest();

  const server = inProcessServerForSuite([], 30_000);

  const createCSR = async (name: string, extra: object = {}) => {
    const created = await server.request('POST', CSRS, {
      body: JSON.stringify({
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name },
        spec: {
          request,
          signerName: 'example.com/signer',
          usages: ['client auth'],
          username: 'mallory',
          groups: ['x'],
          ...extra,
        },
      }),
      headers: JSON_BODY,
    });
    expect(created.status).toBe(201);
    return created.json<CSR>();
  };
  const read = async (name: string) => (await server.request('GET', `${CSRS}/${name}`)).json<CSR>();
  const putApproval = (csr: CSR) =>
    server.request('PUT', `${CSRS}/${csr.metadata.name}/approval`, { body: JSON.stringify(csr), headers: JSON_BODY });

  it('records the requesting user over what the body claims', async () => {
    const csr = await createCSR('requester');
    const subject = new X509Certificate(server.credentials.cert).subject; // "O=...\nCN=..."
    const user = /CN=(.*)/.exec(subject)![1];
    const organizations = [...subject.matchAll(/O=(.*)/g)].map((match) => match[1]);
    expect(csr.spec.username).toBe(user);
    expect(csr.spec.groups).toEqual(expect.arrayContaining([...organizations, 'system:authenticated']));
    expect(csr.spec.groups).not.toContain('x');
    expect(csr.status).toEqual({});
  });

  it('approves with kubectl, and refuses a second decision as the reference does', async () => {
    await createCSR('approved');
    const approved = await server.kubectl(['certificate', 'approve', 'approved']);
    expect(approved.stdout.trim()).toBe('certificatesigningrequest.certificates.k8s.io/approved approved');
    const csr = await read('approved');
    expect(csr.status.conditions).toEqual([
      {
        type: 'Approved',
        status: 'True',
        reason: 'KubectlApprove',
        message: 'This CSR was approved by kubectl certificate approve.',
        lastUpdateTime: expect.any(String),
        lastTransitionTime: expect.any(String),
      },
    ]);
    const denied = await server.kubectl(['certificate', 'deny', 'approved']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr.trim()).toBe('error: certificate signing request "approved" is already Approved');
  });

  it('changes only the conditions and fills their times', async () => {
    const csr = await createCSR('only-conditions');
    const sent: CSR = {
      ...csr,
      spec: { ...csr.spec, usages: ['server auth'] },
      status: { certificate: 'YWJj', conditions: [{ type: 'Denied', status: 'True', reason: 'R' }] },
    };
    const answer = await putApproval(sent);
    expect(answer.status).toBe(200);
    const written = answer.json<CSR>();
    expect(written.spec.usages).toEqual(['client auth']);
    expect(written.status).toEqual({
      conditions: [
        {
          type: 'Denied',
          status: 'True',
          reason: 'R',
          lastUpdateTime: expect.any(String),
          lastTransitionTime: expect.any(String),
        },
      ],
    });
    expect(written.status.conditions![0].lastUpdateTime).toBe(written.status.conditions![0].lastTransitionTime);
  });

  it('refuses what the reference refuses', async () => {
    await createCSR('refused');
    expect((await server.kubectl(['certificate', 'approve', 'refused'])).code).toBe(0);
    const current = await read('refused');
    const both = await putApproval({
      ...current,
      status: {
        conditions: [...current.status.conditions!, { type: 'Denied', status: 'True', reason: 'X', message: 'm' }],
      },
    });
    expect(both.status).toBe(422);
    expect(both.json()).toMatchObject({
      message:
        'CertificateSigningRequest.certificates.k8s.io "refused" is invalid: status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      reason: 'Invalid',
      details: { name: 'refused', group: 'certificates.k8s.io', kind: 'CertificateSigningRequest' },
    });
    const removed = await putApproval({ ...current, status: {} });
    expect(removed.status).toBe(422);
    expect(removed.json()).toMatchObject({
      message:
        'CertificateSigningRequest.certificates.k8s.io "refused" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    });
    const twice = await putApproval({
      ...current,
      status: {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Approved', status: 'True' },
        ],
      },
    });
    expect(twice.status).toBe(422);
    expect(twice.json()).toMatchObject({
      message:
        'CertificateSigningRequest.certificates.k8s.io "refused" is invalid: status.conditions[1].type: Duplicate value: "Approved"',
    });
  });

  it('is in discovery with the reference verbs', async () => {
    const list = (await server.request('GET', '/apis/certificates.k8s.io/v1')).json<{
      resources: Record<string, unknown>[];
    }>();
    expect(list.resources.find((resource) => resource.name === 'certificatesigningrequests/approval')).toEqual({
      name: 'certificatesigningrequests/approval',
      singularName: '',
      namespaced: false,
      kind: 'CertificateSigningRequest',
      verbs: ['get', 'patch', 'update'],
    });
  });
});
