/**
 * The CertificateSigningRequest guards (CertificateApproval, CertificateSigning,
 * CertificateSubjectRestriction) and PersistentVolumeClaimResize, on by default, through
 * kubectl 1.33 as the admin and as a user lacking the signer verbs, with the messages
 * kube-apiserver v1.34.4 gives for the same requests.
 */
import { webcrypto } from 'node:crypto';
import { loadX509 } from '../../../server/x509-library';
import { selfSignedCertificate } from '../../helpers/certificate-request';
import { startServer, type TestServer } from '../../helpers/server';

jest.setTimeout(120_000);

async function csrRequest(subject: string): Promise<string> {
  const x509 = loadX509();
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: algorithm });
  return Buffer.from(csr.toString('pem')).toString('base64');
}

const csr = (name: string, request: string, signer = 'kubernetes.io/kube-apiserver-client') =>
  `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: ${name}}\nspec: {request: ${request}, signerName: ${signer}, usages: [client auth]}\n`;

describe('certificate admission plugins', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    const roles = [
      // bob may update approvals and status, but holds no signer verb.
      [
        'create',
        'clusterrole',
        'csr-writer',
        '--verb=get,list,update,patch',
        '--resource=certificatesigningrequests,certificatesigningrequests/approval,certificatesigningrequests/status',
      ],
      ['create', 'clusterrolebinding', 'bob-csr', '--clusterrole=csr-writer', '--user=bob'],
      ['create', 'clusterrolebinding', 'carol-csr', '--clusterrole=csr-writer', '--user=carol'],
      ['create', 'clusterrolebinding', 'carol-approves', '--clusterrole=kubernetes-io-approver', '--user=carol'],
    ];
    // carol may approve for every kubernetes.io signer, through the domain wildcard.
    const approver = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kubernetes-io-approver}
rules: [{apiGroups: [certificates.k8s.io], resources: [signers], resourceNames: ['kubernetes.io/*'], verbs: [approve]}]
`;
    expect((await server.kubectl(['create', '-f', '-'], { input: approver })).stderr).toBe('');
    for (const args of roles) expect((await server.kubectl(args)).stderr).toBe('');
  });
  afterAll(() => server?.stop());

  it('CertificateSubjectRestriction refuses system:masters from the kube-apiserver-client signer, and nothing is stored', async () => {
    const masters = await server.kubectl(['create', '-f', '-'], {
      input: csr('evil', await csrRequest('CN=evil, O=system:masters')),
    });
    expect(masters.stderr.trim()).toBe(
      'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "evil" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
    expect((await server.kubectl(['get', 'csr', 'evil'])).code).not.toBe(0);
    expect(
      (
        await server.kubectl(['create', '-f', '-'], {
          input: csr('masters-elsewhere', await csrRequest('CN=x, O=system:masters'), 'example.com/signer'),
        })
      ).code,
    ).toBe(0);
  });

  it('CertificateApproval: kubectl certificate approve needs approve on the signer; the admin has it, bob does not', async () => {
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: csr('alice', await csrRequest('CN=alice, O=dev')) })).code,
    ).toBe(0);
    const refused = await server.kubectl(['certificate', 'approve', 'alice', '--as=bob']);
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "alice" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    );
    const conditions = async () =>
      (await server.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/alice')).json<{
        status: { conditions?: { type: string }[] };
      }>().status.conditions ?? [];
    expect(await conditions()).toEqual([]);
    expect((await server.kubectl(['certificate', 'approve', 'alice', '--as=carol'])).stdout.trim()).toBe(
      'certificatesigningrequest.certificates.k8s.io/alice approved',
    );
    expect((await conditions()).map((condition) => condition.type)).toEqual(['Approved']);
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: csr('dave', await csrRequest('CN=dave')) })).code,
    ).toBe(0);
    expect((await server.kubectl(['certificate', 'approve', 'dave'])).code).toBe(0);
  });

  it('CertificateSigning: writing a certificate through status needs sign on the signer', async () => {
    // A well-formed certificate: one that is not is refused by validation, before admission.
    const patch = JSON.stringify({ status: { certificate: selfSignedCertificate() } });
    const refused = await server.kubectl([
      'patch',
      'csr',
      'alice',
      '--subresource=status',
      '--type=merge',
      '-p',
      patch,
      '--as=bob',
    ]);
    expect(refused.stderr.trim()).toBe(
      'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "alice" is forbidden: user not permitted to sign requests with signerName "kubernetes.io/kube-apiserver-client"',
    );
    const stored = (await server.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/alice')).json<{
      status: { certificate?: string };
    }>();
    expect(stored.status.certificate).toBeUndefined();
  });
});

describe('PersistentVolumeClaimResize', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    const setup = `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fixed}
provisioner: example.com/x
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: growable}
provisioner: example.com/x
allowVolumeExpansion: true
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: a, namespace: default}
spec: {storageClassName: fixed, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: b, namespace: default}
spec: {storageClassName: growable, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;
    expect((await server.kubectl(['apply', '-f', '-'], { input: setup })).stderr).toBe('');
    for (const claim of ['a', 'b'])
      expect(
        (await server.kubectl(['patch', 'pvc', claim, '--subresource=status', '-p', '{"status":{"phase":"Bound"}}']))
          .code,
      ).toBe(0);
  });
  afterAll(() => server?.stop());

  it('grows a bound claim only when its StorageClass allows expansion', async () => {
    const grow = (claim: string) =>
      server.kubectl(['patch', 'pvc', claim, '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    expect((await grow('a')).stderr.trim()).toBe(
      'Error from server (Forbidden): persistentvolumeclaims "a" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    expect((await grow('b')).code).toBe(0);
    const requested = async (claim: string) =>
      (await server.request('GET', `/api/v1/namespaces/default/persistentvolumeclaims/${claim}`)).json<{
        spec: { resources: { requests: { storage: string } } };
      }>().spec.resources.requests.storage;
    expect(await requested('a')).toBe('1Gi');
    expect(await requested('b')).toBe('2Gi');
  });

  it("keeps an unbound claim's spec as made, but for the volume it is given", async () => {
    expect(
      (
        await server.kubectl(['create', '-f', '-'], {
          input:
            'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: unbound, namespace: default}\nspec: {storageClassName: growable, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n',
        })
      ).code,
    ).toBe(0);
    const grown = await server.kubectl([
      'patch',
      'pvc',
      'unbound',
      '-p',
      '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}',
    ]);
    // The reference adds a diff of the two specs after the first line.
    expect(grown.stderr.trim().split('\n')[0]).toBe(
      'The PersistentVolumeClaim "unbound" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    );
    expect((await server.kubectl(['patch', 'pvc', 'unbound', '-p', '{"spec":{"volumeName":"pv-x"}}'])).code).toBe(0);
  });
});
