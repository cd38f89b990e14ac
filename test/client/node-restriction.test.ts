/**
 * A kubelet's identity (`system:node:n1` in `system:nodes`) under `--authorization-mode=Node,RBAC`
 * and the NodeRestriction admission plugin, through kubectl 1.33 and raw HTTPS as that node: what
 * its graph lets it read (its pods' resource claims, its volume attachments, its CSINode, its
 * resource slices) and what not, and the attacks NodeRestriction stops (another node, forbidden
 * labels, non-mirror pods, other nodes' pods), each refused with kube-apiserver v1.34.4's message
 * and nothing written.
 */
import { join } from 'node:path';
import { forbidden, kubectlAs, type Kubectl } from './auth-can-i-identities';
import { credentialsOf, httpsCall, startServer, type HttpResult, type TestServer } from '../helpers/server';

jest.setTimeout(120_000);

const SETUP = `
apiVersion: v1
kind: Namespace
metadata: {name: apps}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: runner, namespace: apps}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu-mine, namespace: apps}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu-theirs, namespace: apps}
spec: {}
---
apiVersion: v1
kind: Pod
metadata: {name: on-n1, namespace: apps}
spec:
  nodeName: n1
  serviceAccountName: runner
  containers: [{name: c, image: busybox}]
  resourceClaims: [{name: gpu, resourceClaimName: gpu-mine}]
  volumes: [{name: token, projected: {sources: [{serviceAccountToken: {path: token}}]}}]
---
apiVersion: v1
kind: Pod
metadata: {name: on-n2, namespace: apps}
spec:
  nodeName: n2
  serviceAccountName: runner
  containers: [{name: c, image: busybox}]
  resourceClaims: [{name: gpu, resourceClaimName: gpu-theirs}]
  volumes: [{name: token, projected: {sources: [{serviceAccountToken: {path: token}}]}}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: apps}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: uses-data, namespace: apps}
spec: {nodeName: n1, serviceAccountName: runner, containers: [{name: c, image: busybox}], volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-n1}
spec: {attacher: csi.example.com, nodeName: n1, source: {persistentVolumeName: pv-a}}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va-n2}
spec: {attacher: csi.example.com, nodeName: n2, source: {persistentVolumeName: pv-b}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec: {drivers: []}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n2}
spec: {drivers: []}
`;

const slice = (name: string, node: string) => `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: ${name}}
spec: {driver: gpu.example.com, nodeName: ${node}, pool: {name: p, generation: 1, resourceSliceCount: 1}, devices: []}
`;

describe('a node under the Node authorizer and NodeRestriction', () => {
  let server: TestServer;
  let node: Kubectl;
  let asNode: (method: string, path: string, body?: unknown, contentType?: string) => Promise<HttpResult>;
  let n1Uid: string;

  const stderrOf = async (result: Promise<{ stderr: string; code: number }>) => {
    const done = await result;
    expect(done.code).not.toBe(0);
    return done.stderr.trim();
  };

  beforeAll(async () => {
    server = await startServer({
      flags: ['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction'],
    });
    const applied = await server.kubectl(['apply', '-f', '-'], { input: SETUP });
    expect(applied.stderr).toBe('');
    node = await kubectlAs(server, 'system:node:n1', ['system:nodes']);
    const credentials = credentialsOf(join(server.dataDir, 'system_node_n1.kubeconfig'));
    asNode = (method, path, body, contentType = 'application/json') =>
      httpsCall(
        new URL(path, server.url),
        credentials,
        method,
        body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': contentType } },
      );
    n1Uid = (await server.request('GET', '/api/v1/nodes/n1')).json<{ metadata: { uid: string } }>().metadata.uid;
  });
  afterAll(() => server?.stop());

  it("reads its pods' resource claims, its volume attachments and its CSINode, and not another node's", async () => {
    expect((await node(['get', 'resourceclaim', 'gpu-mine', '-n', 'apps'])).code).toBe(0);
    expect(forbidden(await node(['get', 'resourceclaim', 'gpu-theirs', '-n', 'apps']))).toBe(true);
    expect((await node(['get', 'volumeattachment', 'va-n1'])).code).toBe(0);
    expect(await stderrOf(node(['get', 'volumeattachment', 'va-n2']))).toBe(
      'Error from server (Forbidden): volumeattachments.storage.k8s.io "va-n2" is forbidden: User "system:node:n1" cannot get resource "volumeattachments" in API group "storage.k8s.io" at the cluster scope: no relationship found between node \'n1\' and this object',
    );
    expect((await node(['get', 'csinode', 'n1'])).code).toBe(0);
    expect(await stderrOf(node(['get', 'csinode', 'n2']))).toBe(
      'Error from server (Forbidden): csinodes.storage.k8s.io "n2" is forbidden: User "system:node:n1" cannot get resource "csinodes" in API group "storage.k8s.io" at the cluster scope: can only access CSINode with the same name as the requesting node',
    );
    expect(forbidden(await node(['get', 'serviceaccount', 'default', '-n', 'apps']))).toBe(true);
    expect((await node(['get', 'serviceaccount', 'runner', '-n', 'apps'])).code).toBe(0);
  });

  it('says its rules cannot be listed, as the reference does for node identities', async () => {
    const review = await asNode('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'apps' },
    });
    expect(review.json<{ status: object }>().status).toMatchObject({
      incomplete: true,
      evaluationError: 'node authorizer does not support user rule resolution',
    });
    const admin = await server.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      body: JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        spec: { namespace: 'apps' },
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(admin.json<{ status: { incomplete: boolean } }>().status.incomplete).toBe(false);
  });

  it('publishes ResourceSlices for itself only, and lists them only by its node name', async () => {
    expect((await node(['create', '-f', '-'], { input: slice('mine', 'n1') })).code).toBe(0);
    expect(await stderrOf(node(['create', '-f', '-'], { input: slice('theirs', 'n2') }))).toBe(
      'Error from server (Forbidden): error when creating "STDIN": resourceslices.resource.k8s.io "theirs" is forbidden: can only create ResourceSlice with the same NodeName as the requesting node',
    );
    expect(
      (await node(['get', 'resourceslices', '--field-selector', 'spec.nodeName=n1', '-o', 'name'])).stdout.trim(),
    ).toBe('resourceslice.resource.k8s.io/mine');
    expect(forbidden(await node(['get', 'resourceslices']))).toBe(true);
    expect((await server.kubectl(['get', 'resourceslice', 'theirs'])).code).not.toBe(0);
  });

  it('may not change another node, its own taints, or labels outside the kubelet set', async () => {
    const other = await asNode(
      'PATCH',
      '/api/v1/nodes/n2',
      { metadata: { labels: { a: 'b' } } },
      'application/merge-patch+json',
    );
    expect(other.status).toBe(403);
    expect(other.json<{ message: string }>().message).toBe(
      'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"',
    );
    expect(await stderrOf(node(['label', 'node', 'n1', 'node-restriction.kubernetes.io/x=y']))).toBe(
      'Error from server (Forbidden): nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/x',
    );
    expect(await stderrOf(node(['label', 'node', 'n1', 'foo.kubernetes.io/x=y', 'other=1']))).toBe(
      'Error from server (Forbidden): nodes "n1" is forbidden: is not allowed to modify labels: foo.kubernetes.io/x',
    );
    expect(await stderrOf(node(['taint', 'node', 'n1', 'a=b:NoSchedule']))).toBe(
      'Error from server (Forbidden): nodes "n1" is forbidden: node "n1" is not allowed to modify taints',
    );
    const labels = (name: string) =>
      server
        .request('GET', `/api/v1/nodes/${name}`)
        .then((result) => result.json<{ metadata: { labels?: object } }>().metadata.labels ?? {});
    expect(await labels('n2')).toEqual({});
    expect(await labels('n1')).toEqual({});
    expect(
      (await node(['label', 'node', 'n1', 'node.kubernetes.io/pool=a', 'topology.kubernetes.io/zone=z'])).code,
    ).toBe(0);
    expect(await labels('n1')).toEqual({ 'node.kubernetes.io/pool': 'a', 'topology.kubernetes.io/zone': 'z' });
  });

  it('registers itself only without labels it may not set', async () => {
    const n3 = await kubectlAs(server, 'system:node:n3', ['system:nodes']);
    const registration = (labels: string) => `apiVersion: v1\nkind: Node\nmetadata: {name: n3, labels: {${labels}}}\n`;
    expect(
      await stderrOf(
        n3(['create', '--validate=false', '-f', '-'], {
          input: registration(
            'node-restriction.kubernetes.io/pool: "a", kubernetes.io/hostname: "n3", example.k8s.io/x: "y"',
          ),
        }),
      ),
    ).toBe(
      'Error from server (Forbidden): error when creating "STDIN": nodes "n3" is forbidden: node "n3" is not allowed to set the following labels: example.k8s.io/x, node-restriction.kubernetes.io/pool',
    );
    expect((await server.request('GET', '/api/v1/nodes/n3')).status).toBe(404);
    expect(
      (
        await n3(['create', '--validate=false', '-f', '-'], {
          input: registration('kubernetes.io/hostname: "n3", kubelet.kubernetes.io/role: "x"'),
        })
      ).code,
    ).toBe(0);
  });

  it('creates only mirror pods of its own that name no API object', async () => {
    const mirror = (name: string, extra: object = {}) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'apps',
        annotations: { 'kubernetes.io/config.mirror': 'hash' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: n1Uid, controller: true }],
      },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }], ...extra },
    });
    expect(
      await stderrOf(node(['run', 'plain', '-n', 'apps', '--image=busybox', '--overrides={"spec":{"nodeName":"n1"}}'])),
    ).toBe(
      'Error from server (Forbidden): pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods',
    );
    const secretPod = await asNode(
      'POST',
      '/api/v1/namespaces/apps/pods',
      mirror('reads-secret', { volumes: [{ name: 's', secret: { secretName: 'x' } }] }),
    );
    expect(secretPod.status).toBe(403);
    expect(secretPod.json<{ message: string }>().message).toBe(
      // ServiceAccount admission, before NodeRestriction in the reference's order, refuses it first.
      'pods "reads-secret" is forbidden: a mirror pod may not reference secrets',
    );
    const elsewhere = await asNode('POST', '/api/v1/namespaces/apps/pods', {
      ...mirror('elsewhere'),
      spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'busybox' }] },
    });
    expect(elsewhere.json<{ message: string }>().message).toBe(
      'pods "elsewhere" is forbidden: node "n1" can only create pods with spec.nodeName set to itself',
    );
    for (const name of ['plain', 'reads-secret', 'elsewhere'])
      expect((await server.request('GET', `/api/v1/namespaces/apps/pods/${name}`)).status).toBe(404);
    expect((await asNode('POST', '/api/v1/namespaces/apps/pods', mirror('static'))).status).toBe(201);
  });

  it("touches no other node's pods: status, deletion, eviction", async () => {
    // As a kubelet does it: kubectl's --subresource would read pods/status first, which no node may.
    const status = (pod: string, patch: object) =>
      asNode('PATCH', `/api/v1/namespaces/apps/pods/${pod}/status`, patch, 'application/merge-patch+json');
    expect((await status('on-n1', { status: { message: 'ok' } })).status).toBe(200);
    const foreign = await status('on-n2', { status: { message: 'mine now' } });
    expect(foreign.json<{ message: string }>().message).toBe(
      'pods "on-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself',
    );
    const relabel = await status('on-n1', { metadata: { labels: { x: 'y' } } });
    expect(relabel.json<{ message: string }>().message).toBe(
      'pods "on-n1" is forbidden: node "n1" cannot update labels through pod status',
    );
    expect(await stderrOf(node(['delete', 'pod', 'on-n2', '-n', 'apps']))).toBe(
      'Error from server (Forbidden): pods "on-n2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself',
    );
    const eviction = await asNode('POST', '/api/v1/namespaces/apps/pods/on-n2/eviction', {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'on-n2', namespace: 'apps' },
    });
    expect(eviction.status).toBe(403);
    expect(eviction.json<{ message: string }>().message).toBe(
      'pods "on-n2" is forbidden: node n1 can only evict pods with spec.nodeName set to itself',
    );
    const own = await asNode('POST', '/api/v1/namespaces/apps/pods/static/eviction', {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'static', namespace: 'apps' },
    });
    expect(own.status).toBe(201);
    const evicted = await server.request('GET', '/api/v1/namespaces/apps/pods/static');
    expect(
      evicted.status === 404 ||
        evicted.json<{ metadata: { deletionTimestamp?: string } }>().metadata.deletionTimestamp !== undefined,
    ).toBe(true);
    const survivor = (await server.request('GET', '/api/v1/namespaces/apps/pods/on-n2')).json<{
      metadata: { deletionTimestamp?: string };
      status: { message?: string; conditions?: unknown[] };
    }>();
    expect(survivor.metadata.deletionTimestamp).toBeUndefined();
    expect(survivor.status.message).toBeUndefined();
    expect(survivor.status.conditions ?? []).toEqual([]);
  });

  it("reports only a claim's capacity and conditions through its status", async () => {
    const status = (patch: object) =>
      asNode(
        'PATCH',
        '/api/v1/namespaces/apps/persistentvolumeclaims/data/status',
        patch,
        'application/merge-patch+json',
      );
    expect(
      (await status({ status: { capacity: { storage: '1Gi' }, conditions: [{ type: 'Resizing', status: 'True' }] } }))
        .status,
    ).toBe(200);
    const phase = await status({ status: { phase: 'Lost' } });
    expect(phase.status).toBe(403);
    // Then a Go diff of the two internal claims, as test/server/registry/update-diff-messages.test.ts replays.
    const message = phase.json<{ message: string }>().message;
    expect(message).toMatch(
      /^persistentvolumeclaims "data" is forbidden: node "n1" is not allowed to update fields other than status.quantity and status.conditions: @@ /,
    );
    expect(message).toContain('\n-  "Phase": "Pending",\n+  "Phase": "Lost",\n');
    const stored = (await server.request('GET', '/api/v1/namespaces/apps/persistentvolumeclaims/data')).json<{
      status: { phase?: string; capacity?: object };
    }>();
    expect(stored.status).toMatchObject({ phase: 'Pending', capacity: { storage: '1Gi' } });
  });

  it('requests tokens only bound to its own pods, and holds only its own Lease', async () => {
    const pods = (await server.request('GET', '/api/v1/namespaces/apps/pods')).json<{
      items: { metadata: { name: string; uid: string } }[];
    }>().items;
    const uid = (name: string) => pods.find((pod) => pod.metadata.name === name)!.metadata.uid;
    const token = (pod: string, audiences: string[] = []) =>
      asNode('POST', '/api/v1/namespaces/apps/serviceaccounts/runner/token', {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod, uid: uid(pod) } },
      });
    const own = await token('on-n1');
    expect(own.body).toContain('"token"');
    expect(own.status).toBe(201);
    const otherAudience = await token('on-n1', ['vault']);
    expect(otherAudience.json<{ message: string }>().message).toBe(
      'serviceaccounts "runner" is forbidden: audience "vault" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience',
    );
    const stolen = await token('on-n2');
    expect(stolen.status).toBe(403);
    expect(stolen.json<{ message: string }>().message).toBe(
      'serviceaccounts "runner" is forbidden: node requested token bound to a pod scheduled on a different node',
    );

    const lease = (name: string) =>
      `apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {name: ${name}, namespace: kube-node-lease}\nspec: {holderIdentity: ${name}}\n`;
    expect((await node(['create', '-f', '-'], { input: lease('n1') })).code).toBe(0);
    expect(await stderrOf(node(['create', '-f', '-'], { input: lease('n2') }))).toBe(
      'Error from server (Forbidden): error when creating "STDIN": leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node',
    );
    expect((await server.kubectl(['get', 'lease', 'n2', '-n', 'kube-node-lease'])).code).not.toBe(0);
  });
});
