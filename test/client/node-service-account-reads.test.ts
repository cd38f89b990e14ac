/**
 * A kubelet reads the service account of a pod on its node (for image credential providers)
 * while KubeletServiceAccountTokenForCredentialProviders is on, its 1.34 default: the Node
 * authorizer allows it, for that account only. With the gate off, neither the Node authorizer
 * nor the `system:node` role allows it.
 */
import { canI, kubectlAs } from './auth-can-i-identities';
import { startServer, type TestServer } from '../helpers/server';

jest.setTimeout(120_000);

const SETUP = `
apiVersion: v1
kind: Namespace
metadata: {name: apps}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: runner, namespace: apps}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: other, namespace: apps}
---
apiVersion: v1
kind: Pod
metadata: {name: on-n1, namespace: apps}
spec: {nodeName: n1, serviceAccountName: runner, containers: [{name: c, image: busybox}]}
`;

async function nodeReads(flags: string[]): Promise<{ own: boolean; other: boolean }> {
  const server: TestServer = await startServer({
    flags: ['--authorization-mode=Node,RBAC', '--disable-admission-plugins=ServiceAccount', ...flags],
  });
  try {
    expect((await server.kubectl(['apply', '-f', '-'], { input: SETUP })).stderr).toBe('');
    const node = await kubectlAs(server, 'system:node:n1', ['system:nodes']);
    return {
      own: await canI(node, ['get', 'serviceaccounts/runner', '-n', 'apps']),
      other: await canI(node, ['get', 'serviceaccounts/other', '-n', 'apps']),
    };
  } finally {
    await server.stop();
  }
}

it("on (the default): a node reads its pods' service accounts, and only those", async () => {
  expect(await nodeReads([])).toEqual({ own: true, other: false });
});

it('off: not even those', async () => {
  expect(await nodeReads(['--feature-gates=KubeletServiceAccountTokenForCredentialProviders=false'])).toEqual({
    own: false,
    other: false,
  });
});
