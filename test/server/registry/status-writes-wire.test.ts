/**
 * Status writes through a whole replica, as kube-apiserver 1.34.4 answered the same requests: a
 * Job's status refused with the reference's Status body, word for word; a pod's addresses judged on
 * its status subresource; a Service's ingress point stored with the ipMode it defaults.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

// No controllers, so no default ServiceAccount for a pod to be admitted with.
const server = inProcessServerForSuite(['--controllers=', '--disable-admission-plugins=ServiceAccount']);

const JSON_BODY = { 'content-type': 'application/json' };
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

async function create(path: string, object: Record<string, unknown>): Promise<void> {
  const answer = await server.request('POST', path, { headers: JSON_BODY, body: JSON.stringify(object) });
  expect(answer.status).toBe(201);
}

function patchStatus(path: string, status: Record<string, unknown>) {
  return server.request('PATCH', `${path}/status`, { headers: MERGE_PATCH, body: JSON.stringify({ status }) });
}

test('a Job given a completion time without Complete: the Status the reference answers', async () => {
  await create('/apis/batch/v1/namespaces/default/jobs', {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } },
  });
  const answer = await patchStatus('/apis/batch/v1/namespaces/default/jobs/j', {
    startTime: '2024-01-01T10:00:00Z',
    completionTime: '2024-01-01T11:00:00Z',
  });
  expect(answer.status).toBe(422);
  expect(answer.json()).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'Job.batch "j" is invalid: status.completionTime: Invalid value: "2024-01-01T11:00:00Z": cannot set completionTime when there is no Complete=True condition',
    reason: 'Invalid',
    details: {
      name: 'j',
      group: 'batch',
      kind: 'Job',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: "2024-01-01T11:00:00Z": cannot set completionTime when there is no Complete=True condition',
          field: 'status.completionTime',
        },
      ],
    },
    code: 422,
  });
});

test('a start time moved by half a second is a change, as the reference decodes it', async () => {
  await create('/apis/batch/v1/namespaces/default/jobs', {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'half' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } },
  });
  const path = '/apis/batch/v1/namespaces/default/jobs/half';
  expect((await patchStatus(path, { startTime: '2024-01-01T10:00:00Z' })).status).toBe(200);
  const moved = await patchStatus(path, { startTime: '2024-01-01T10:00:00.5Z' });
  expect(moved.status).toBe(422);
  expect(moved.json<{ message: string }>().message).toBe(
    'Job.batch "half" is invalid: status.startTime: Required value: startTime cannot be removed for unsuspended job',
  );
});

test("a pod's two addresses of one family are refused on its status", async () => {
  await create('/api/v1/namespaces/default/pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'c', image: 'i' }] },
  });
  const answer = await patchStatus('/api/v1/namespaces/default/pods/p', {
    podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }],
  });
  expect(answer.status).toBe(422);
  expect(answer.json<{ message: string }>().message).toBe(
    'Pod "p" is invalid: status.podIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"10.0.0.2"}]: may specify no more than one IP for each IP family',
  );
});

test("a LoadBalancer Service's ingress point: leading zeros taken while StrictIPCIDRValidation is off, a VIP", async () => {
  await create('/api/v1/namespaces/default/services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
  });
  const answer = await patchStatus('/api/v1/namespaces/default/services/s', {
    loadBalancer: { ingress: [{ ip: '010.1.2.3' }] },
  });
  expect(answer.status).toBe(200);
  expect(answer.json<{ status: unknown }>().status).toEqual({
    loadBalancer: { ingress: [{ ip: '010.1.2.3', ipMode: 'VIP' }] },
  });
});
