/**
 * The node-connecting subresources answer as a reference kube-apiserver v1.34.4 does when there
 * is nothing to connect to (no node, a missing node, a node without an address, an address it
 * will not proxy to), over raw HTTPS and kubectl 1.33 against a whole replica in this process.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const NS = '/api/v1/namespaces/default';
const JSON_BODY = { 'Content-Type': 'application/json' };

const HOSTLESS = (name: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `pod ${name} does not have a host assigned`,
  reason: 'BadRequest',
  code: 400,
});
const ADDRESS_NOT_ALLOWED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'address not allowed',
  reason: 'BadRequest',
  code: 400,
};

describe('connect subresources without a reachable node', () => {
  // This server runs no service-account controller, so no `default` account: its pods are not the point here.
  const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount']);

  beforeAll(async () => {
    const pod = (name: string, containers: string[], nodeName?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { ...(nodeName ? { nodeName } : {}), containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
    });
    for (const body of [
      pod('unbound', ['c']),
      pod('multi', ['a', 'b']),
      pod('orphan', ['c'], 'gone'),
      pod('placed', ['c'], 'bare'),
    ]) {
      expect(
        (await server.request('POST', `${NS}/pods`, { body: JSON.stringify(body), headers: JSON_BODY })).status,
      ).toBe(201);
    }
    expect(
      (
        await server.request('POST', '/api/v1/nodes', {
          body: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } }),
          headers: JSON_BODY,
        })
      ).status,
    ).toBe(201);
  }, 30_000);

  it('pods/log of a pod without a node is 204 and kubectl logs prints nothing', async () => {
    const log = await server.request('GET', `${NS}/pods/unbound/log`);
    expect(log.status).toBe(204);
    expect(log.body).toBe('');
    const kubectl = await server.kubectl(['logs', 'unbound']);
    expect(kubectl).toMatchObject({ code: 0, stdout: '' });
  });

  it('exec, attach and portforward of a pod without a node are 400', async () => {
    for (const subresource of ['exec?command=ls', 'attach', 'portforward']) {
      for (const method of ['GET', 'POST']) {
        const answer = await server.request(method, `${NS}/pods/unbound/${subresource}`);
        expect({ subresource, method, status: answer.status, body: answer.json() }).toEqual({
          subresource,
          method,
          status: 400,
          body: HOSTLESS('unbound'),
        });
      }
    }
    expect((await server.request('PUT', `${NS}/pods/unbound/portforward`)).status).toBe(405);
  });

  it('checks the container first, with the reference messages', async () => {
    const unnamed = await server.request('GET', `${NS}/pods/multi/log`);
    expect(unnamed.status).toBe(400);
    expect(unnamed.json()).toMatchObject({
      message: 'a container name must be specified for pod multi, choose one of: [a b]',
      reason: 'BadRequest',
    });
    const exec = await server.request('POST', `${NS}/pods/multi/exec?command=ls`);
    expect(exec.json()).toMatchObject({
      message: 'a container name must be specified for pod multi, choose one of: [a b]',
      code: 400,
    });
    const wrong = await server.request('POST', `${NS}/pods/multi/attach?container=zz`);
    expect(wrong.json()).toMatchObject({
      message: 'container zz is not valid for pod multi',
      reason: 'BadRequest',
      code: 400,
    });
    const wrongLog = await server.request('GET', `${NS}/pods/unbound/log?container=zz`);
    expect(wrongLog.json()).toMatchObject({ message: 'container zz is not valid for pod unbound', code: 400 });
  });

  it('a missing node is the reference\'s "pods <node> not found", a node without addresses its 500', async () => {
    for (const path of ['orphan/log', 'orphan/exec?command=ls']) {
      const answer = await server.request(path.includes('exec') ? 'POST' : 'GET', `${NS}/pods/${path}`);
      expect(answer.status).toBe(404);
      expect(answer.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'pods "gone" not found',
        reason: 'NotFound',
        details: { name: 'gone', kind: 'pods' },
        code: 404,
      });
    }
    const bare = await server.request('GET', `${NS}/pods/placed/log`);
    expect(bare.status).toBe(500);
    // The reference omits the empty reason; capstan's Status writer keeps `"reason": ""` for every unclassified error.
    expect(bare.json()).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'no preferred addresses found; known addresses: []',
      code: 500,
    });
    const nodeProxy = await server.request('GET', '/api/v1/nodes/bare/proxy/x');
    expect(nodeProxy.json()).toMatchObject({ message: 'no preferred addresses found; known addresses: []', code: 500 });
  });

  it('proxies refuse addresses the reference refuses, and name what is missing', async () => {
    expect((await server.request('GET', `${NS}/pods/unbound/proxy/`)).json()).toEqual(ADDRESS_NOT_ALLOWED);
    const loopback = await server.request('PATCH', '/api/v1/nodes/bare/status', {
      body: JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] } }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(loopback.status).toBe(200);
    expect((await server.request('GET', '/api/v1/nodes/bare/proxy/x')).json()).toEqual(ADDRESS_NOT_ALLOWED);
    const missingNode = await server.request('GET', '/api/v1/nodes/n1/proxy/');
    expect(missingNode.json()).toMatchObject({
      message: 'nodes "n1" not found',
      reason: 'NotFound',
      details: { name: 'n1', kind: 'nodes' },
      code: 404,
    });
    // Its Endpoints name the server's own address, which is no pod's: the reference proxies to pods only.
    const service = await server.request('GET', `${NS}/services/kubernetes/proxy/`);
    expect(service.json()).toMatchObject({
      message: 'no endpoints available for service "kubernetes"',
      reason: 'ServiceUnavailable',
      code: 503,
    });
  });

  it('lists them in discovery with the reference kinds and verbs', async () => {
    const list = (await server.request('GET', '/api/v1')).json<{
      resources: { name: string; kind: string; verbs: string[] }[];
    }>();
    const shown = Object.fromEntries(
      list.resources
        .filter((r) => /\/(log|exec|attach|portforward|proxy)$/.test(r.name))
        .map((r) => [r.name, [r.kind, r.verbs]]),
    );
    const proxyVerbs = ['create', 'delete', 'get', 'patch', 'update'];
    expect(shown).toEqual({
      'nodes/proxy': ['NodeProxyOptions', proxyVerbs],
      'pods/attach': ['PodAttachOptions', ['create', 'get']],
      'pods/exec': ['PodExecOptions', ['create', 'get']],
      'pods/log': ['Pod', ['get']],
      'pods/portforward': ['PodPortForwardOptions', ['create', 'get']],
      'pods/proxy': ['PodProxyOptions', proxyVerbs],
      'services/proxy': ['ServiceProxyOptions', proxyVerbs],
    });
  });
});
