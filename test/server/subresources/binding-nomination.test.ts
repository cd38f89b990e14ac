/**
 * ClearingNominatedNodeNameAfterBinding over real HTTPS: a pod the scheduler nominated for a
 * node, then bound, keeps its nomination while the gate is off (the 1.34 default) and loses it
 * with the gate on, as a 1.34.4 kube-apiserver did with the same requests.
 */
import { startInProcessServer } from '../../helpers/in-process-server';

const NS = '/api/v1/namespaces/default';
const JSON_BODY = { 'Content-Type': 'application/json' };
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

/** The pod's nomination after nominating it for n1 and binding it to n1. */
async function nominationAfterBinding(flags: string[]): Promise<string | undefined> {
  const server = await startInProcessServer(['--disable-admission-plugins', 'ServiceAccount', ...flags]);
  try {
    const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    expect((await server.request('POST', `${NS}/pods`, { body: JSON.stringify(pod), headers: JSON_BODY })).status).toBe(
      201,
    );
    const nominate = JSON.stringify({ status: { nominatedNodeName: 'n1' } });
    expect(
      (await server.request('PATCH', `${NS}/pods/p/status`, { body: nominate, headers: MERGE_PATCH })).status,
    ).toBe(200);
    const binding = JSON.stringify({ metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
    expect((await server.request('POST', `${NS}/pods/p/binding`, { body: binding, headers: JSON_BODY })).status).toBe(
      201,
    );
    return (await server.request('GET', `${NS}/pods/p`)).json<{ status: { nominatedNodeName?: string } }>().status
      .nominatedNodeName;
  } finally {
    await server.stop();
  }
}

test('off (the default): a bound pod keeps its nomination', async () => {
  expect(await nominationAfterBinding([])).toBe('n1');
}, 60_000);

test('on: binding clears it', async () => {
  expect(await nominationAfterBinding(['--feature-gates=ClearingNominatedNodeNameAfterBinding=true'])).toBeUndefined();
}, 60_000);
