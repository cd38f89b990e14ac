/**
 * A PodCertificateRequest's status is its signer's answer: a write that changes it needs `sign`
 * on the request's signer (by name or its domain's wildcard), checked after the status's own
 * rules and on dry runs too; a status write that leaves the status as it was needs nothing more.
 * Each answer as kube-apiserver 1.34.4 gave it to the same requests (asked 2026-11-29).
 */
import { createPrivateKey, sign, webcrypto } from 'node:crypto';
import { startServer, type TestServer } from '../../helpers/server';

jest.setTimeout(120_000);

const PATH = '/apis/certificates.k8s.io/v1alpha1/namespaces/default/podcertificaterequests';
const SIGNER = 'example.com/signer';
const MERGE_PATCH = 'application/merge-patch+json';
type Json = Record<string, unknown>;

let server: TestServer;

async function send(method: string, path: string, body: Json, options: { as?: string; contentType?: string } = {}) {
  const answer = await server.request(method, path, {
    body: JSON.stringify(body),
    headers: {
      'content-type': options.contentType ?? 'application/json',
      ...(options.as === undefined ? {} : { 'Impersonate-User': options.as }),
    },
  });
  return { status: answer.status, body: answer.json<Json & { message?: string; details?: { causes?: Json[] } }>() };
}

const rfc3339Now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const denial = () => ({
  status: {
    conditions: [{ type: 'Denied', status: 'True', reason: 'NoWay', message: 'no', lastTransitionTime: rfc3339Now() }],
  },
});

beforeAll(async () => {
  server = await startServer({
    flags: ['--runtime-config=certificates.k8s.io/v1alpha1=true', '--feature-gates=PodCertificateRequest=true'],
  });
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const role = (name: string, rule: Json) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: [rule],
  });
  const writes: [string, Json][] = [
    [
      `${rbac}/clusterroles`,
      role('pcr-writer', {
        apiGroups: ['certificates.k8s.io'],
        resources: ['podcertificaterequests', 'podcertificaterequests/status'],
        verbs: ['get', 'update', 'patch'],
      }),
    ],
    [
      `${rbac}/clusterroles`,
      role('example-signer', {
        apiGroups: ['certificates.k8s.io'],
        resources: ['signers'],
        resourceNames: ['example.com/*'],
        verbs: ['sign'],
      }),
    ],
    ...(
      [
        ['bob-writes', 'pcr-writer', 'bob'],
        ['carol-writes', 'pcr-writer', 'carol'],
        ['carol-signs', 'example-signer', 'carol'],
      ] as const
    ).map(([name, roleName, user]): [string, Json] => [
      `${rbac}/clusterrolebindings`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
    ]),
  ];
  for (const [path, body] of writes) expect((await send('POST', path, body)).status).toBe(201);

  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const privateKey = createPrivateKey({
    key: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
    format: 'der',
    type: 'pkcs8',
  });
  for (const name of ['asked', 'labelled']) {
    const created = await send('POST', PATH, {
      apiVersion: 'certificates.k8s.io/v1alpha1',
      kind: 'PodCertificateRequest',
      metadata: { name },
      spec: {
        signerName: SIGNER,
        podName: 'p',
        podUID: 'uid',
        serviceAccountName: 'default',
        serviceAccountUID: 'sa',
        nodeName: 'n',
        nodeUID: 'nu',
        pkixPublicKey: Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey)).toString('base64'),
        proofOfPossession: sign('sha256', Buffer.from('uid'), privateKey).toString('base64'),
      },
    });
    expect(created.status).toBe(201);
  }
});
afterAll(() => server?.stop());

const FORBIDDEN_CAUSE = {
  reason: 'FieldValueForbidden',
  message: `Forbidden: User "bob" is not permitted to "sign" for signer "${SIGNER}"`,
  field: 'spec.signerName',
};

it('refuses a status change from a user without sign on the signer, dry run or not, and stores nothing', async () => {
  for (const query of ['', '?dryRun=All']) {
    const refused = await send('PATCH', `${PATH}/asked/status${query}`, denial(), {
      as: 'bob',
      contentType: MERGE_PATCH,
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      reason: 'Invalid',
      message: `PodCertificateRequest.certificates.k8s.io "asked" is invalid: spec.signerName: ${FORBIDDEN_CAUSE.message}`,
      details: {
        name: 'asked',
        group: 'certificates.k8s.io',
        kind: 'PodCertificateRequest',
        causes: [FORBIDDEN_CAUSE],
      },
    });
  }
  const stored = await server.request('GET', `${PATH}/asked`);
  expect(stored.json<Json>().status).toEqual({});
});

it("answers the status's own errors first", async () => {
  const invalid = await send(
    'PATCH',
    `${PATH}/asked/status`,
    { status: { conditions: [{ type: 'Denied' }] } },
    {
      as: 'bob',
      contentType: MERGE_PATCH,
    },
  );
  expect(invalid.status).toBe(422);
  expect(invalid.body.details?.causes?.map((cause) => cause.field)).not.toContain('spec.signerName');
});

it('lets a status write that leaves the status as it was through', async () => {
  const labelled = await send(
    'PATCH',
    `${PATH}/labelled/status`,
    { metadata: { labels: { a: 'b' } } },
    {
      as: 'bob',
      contentType: MERGE_PATCH,
    },
  );
  expect(labelled.status).toBe(200);
});

it("takes the change from a user with sign on the signer's domain", async () => {
  const signed = await send('PATCH', `${PATH}/asked/status`, denial(), { as: 'carol', contentType: MERGE_PATCH });
  expect(signed.status).toBe(200);
  expect((signed.body.status as { conditions: Json[] }).conditions[0]).toMatchObject({
    type: 'Denied',
    reason: 'NoWay',
  });
});
