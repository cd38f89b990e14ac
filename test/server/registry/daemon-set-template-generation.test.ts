/**
 * A DaemonSet carries its template generation in `deprecated.daemonset.template.generation`, as
 * the reference's apps/v1 conversion writes it: 1 on create, one up on each update that changes
 * the pod template, kept on other updates whatever the client sends.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const ANNOTATION = 'deprecated.daemonset.template.generation';
const PATH = '/apis/apps/v1/namespaces/default/daemonsets';

const server = inProcessServerForSuite();

type DaemonSet = {
  metadata: { resourceVersion: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { template: { spec: { containers: { name: string; image: string }[] } } };
};

async function write(method: 'POST' | 'PUT', path: string, body: object): Promise<DaemonSet> {
  const answer = await server.request(method, path, {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect([200, 201]).toContain(answer.status);
  return answer.json<DaemonSet>();
}

test('1 on create, one up on a template change, kept otherwise', async () => {
  const template = {
    metadata: { labels: { app: 'agent' } },
    spec: { containers: [{ name: 'agent', image: 'agent:1' }] },
  };
  const created = await write('POST', PATH, {
    metadata: { name: 'agent' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template },
  });
  expect(created.metadata.annotations).toEqual({ [ANNOTATION]: '1' });

  created.spec.template.spec.containers[0].image = 'agent:2';
  const changed = await write('PUT', `${PATH}/agent`, created);
  expect(changed.metadata.annotations?.[ANNOTATION]).toBe('2');

  // A client cannot set it, and a change outside the template leaves it.
  const relabelled = await write('PUT', `${PATH}/agent`, {
    ...changed,
    metadata: { ...changed.metadata, labels: { tier: 'node' }, annotations: { [ANNOTATION]: '9' } },
  });
  expect(relabelled.metadata.annotations?.[ANNOTATION]).toBe('2');
  const read = (await server.request('GET', `${PATH}/agent`)).json<DaemonSet>();
  expect(read.metadata.annotations?.[ANNOTATION]).toBe('2');
});
