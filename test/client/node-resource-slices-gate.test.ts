/**
 * A kubelet reaches its own ResourceSlices by name through the Node authorizer's graph only while
 * DynamicResourceAllocation is on: kube-apiserver v1.34.4 with the gate off gives the graph no
 * slices, so a node may still create its slices and list them by `spec.nodeName`, but a get or
 * delete by name is refused with "no relationship found".
 */
import { forbidden, kubectlAs } from './auth-can-i-identities';
import { startServer } from '../helpers/server';

jest.setTimeout(120_000);

const SLICE = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: mine}
spec: {driver: gpu.example.com, nodeName: n1, pool: {name: p, generation: 1, resourceSliceCount: 1}}
`;

async function nodeUsesItsSlice(flags: string[]): Promise<{ listed: string; get: string; delete: string }> {
  const server = await startServer({ flags: ['--authorization-mode=Node,RBAC', ...flags] });
  try {
    const node = await kubectlAs(server, 'system:node:n1', ['system:nodes']);
    expect((await node(['create', '-f', '-'], { input: SLICE })).code).toBe(0);
    const listed = await node(['get', 'resourceslices', '--field-selector', 'spec.nodeName=n1', '-o', 'name']);
    expect(listed.code).toBe(0);
    const get = await node(['get', 'resourceslice', 'mine', '-o', 'name']);
    const deleted = await node(['delete', 'resourceslice', 'mine']);
    return {
      listed: listed.stdout.trim(),
      get: forbidden(get) ? get.stderr.trim() : get.stdout.trim(),
      delete: forbidden(deleted) ? deleted.stderr.trim() : deleted.stdout.trim(),
    };
  } finally {
    await server.stop();
  }
}

it('on (the default): a node gets and deletes its own slice by name', async () => {
  expect(await nodeUsesItsSlice([])).toEqual({
    listed: 'resourceslice.resource.k8s.io/mine',
    get: 'resourceslice.resource.k8s.io/mine',
    delete: 'resourceslice.resource.k8s.io "mine" deleted',
  });
});

it('off: the graph has no slices, so only the create and the list by node are left', async () => {
  const forbiddenTo = (verb: string) =>
    `Error from server (Forbidden): resourceslices.resource.k8s.io "mine" is forbidden: User "system:node:n1" cannot ${verb} resource "resourceslices" in API group "resource.k8s.io" at the cluster scope: no relationship found between node 'n1' and this object`;
  expect(await nodeUsesItsSlice(['--feature-gates=DynamicResourceAllocation=false'])).toEqual({
    listed: 'resourceslice.resource.k8s.io/mine',
    get: forbiddenTo('get'),
    delete: forbiddenTo('delete'),
  });
});
