/**
 * Updates of PodCertificateRequests that break their metadata (and their spec or status), sent
 * to a server with the PodCertificateRequest gate on: each case makes its own request, signed
 * for its pod as a create must be (the proof of possession is the pod UID signed with the key
 * whose public half the request carries), then PUTs it changed. Shared by the test that replays
 * the reference's answers (fixtures/pod-certificate-request-updates.json) and by whoever records
 * them again against a kube-apiserver 1.34 started with the same gate.
 */
import { generateKeyPairSync, sign } from 'node:crypto';

type Json = Record<string, unknown>;

/** What both a TestServer and a ReferenceApiserver answer requests with. */
export interface RequestSender {
  request(
    method: string,
    path: string,
    options?: { body?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: string }>;
}

export interface UpdateAnswer {
  readonly code: number;
  readonly reason: string;
  readonly causes: readonly { field: string; reason: string; message: string }[];
}

export const PCR_FLAGS = [
  '--runtime-config=certificates.k8s.io/v1alpha1=true',
  '--feature-gates=PodCertificateRequest=true',
];

const PATH = '/apis/certificates.k8s.io/v1alpha1/namespaces/default/podcertificaterequests';
const POD_UID = 'pod-uid';
const BAD_KEY = 'bad key!';

interface UpdateCase {
  readonly subresource?: 'status';
  readonly change: (request: Json & { metadata: Json; spec: Json; status?: Json }) => void;
}

const badKeys = (request: { metadata: Json }) => {
  request.metadata.labels = { [BAD_KEY]: 'v' };
  request.metadata.annotations = { [BAD_KEY]: 'v' };
};

export const PCR_UPDATE_CASES: Readonly<Record<string, UpdateCase>> = {
  labelValue: { change: (request) => (request.metadata.labels = { bad: '-bad-' }) },
  annotationKey: { change: (request) => (request.metadata.annotations = { [BAD_KEY]: 'v' }) },
  finalizerName: { change: (request) => (request.metadata.finalizers = ['bad name!', 'kubernetes']) },
  ownerReference: {
    change: (request) => (request.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: '' }]),
  },
  metadataAndSpec: {
    change: (request) => {
      badKeys(request);
      request.spec.podName = 'q';
    },
  },
  // A status write keeps the stored metadata: only the status is judged.
  metadataAndStatus: {
    subresource: 'status',
    change: (request) => {
      badKeys(request);
      request.status = { conditions: [{ type: 'Denied' }] };
    },
  },
};

/** A request for the pod, with an Ed25519 key made for it and the pod UID signed with it. */
export function podCertificateRequestBody(name: string): Json {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    apiVersion: 'certificates.k8s.io/v1alpha1',
    kind: 'PodCertificateRequest',
    metadata: { name },
    spec: {
      signerName: 'example.com/signer',
      podName: 'p',
      podUID: POD_UID,
      serviceAccountName: 'default',
      serviceAccountUID: 'sa-uid',
      nodeName: 'n',
      nodeUID: 'node-uid',
      pkixPublicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      proofOfPossession: sign(null, Buffer.from(POD_UID), privateKey).toString('base64'),
    },
  };
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Creates the case's request (named after it), PUTs it changed, and says what came back. */
export async function updateAnswer(server: RequestSender, name: string): Promise<UpdateAnswer> {
  const updateCase = PCR_UPDATE_CASES[name];
  const objectName = name.toLowerCase();
  const created = await server.request('POST', PATH, {
    body: JSON.stringify(podCertificateRequestBody(objectName)),
    headers: JSON_TYPE,
  });
  if (created.status !== 201) throw new Error(`create ${name}: ${created.status} ${created.body}`);
  const request = JSON.parse(created.body) as Json & { metadata: Json; spec: Json };
  updateCase.change(request);
  const path = `${PATH}/${objectName}${updateCase.subresource === undefined ? '' : `/${updateCase.subresource}`}`;
  const answer = await server.request('PUT', path, { body: JSON.stringify(request), headers: JSON_TYPE });
  const status = JSON.parse(answer.body) as {
    reason?: string;
    details?: { causes?: { field?: string; reason?: string; message?: string }[] };
  };
  return {
    code: answer.status,
    reason: status.reason ?? '',
    causes: (status.details?.causes ?? []).map((cause) => ({
      field: cause.field ?? '',
      reason: cause.reason ?? '',
      message: cause.message ?? '',
    })),
  };
}
