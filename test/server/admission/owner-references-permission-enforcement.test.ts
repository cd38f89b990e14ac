/**
 * OwnerReferencesPermissionEnforcement against a real server with RBAC: each answer is the one
 * kube-apiserver v1.34.4 gave to the same requests from the same user with the same roles. The
 * owners exist, as the server's garbage collector would delete an object whose owners do not.
 */
import { startServer, type TestServer } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';

const json = { 'content-type': 'application/json' };
const asAlice = { 'Impersonate-User': 'alice' };

interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

describe('OwnerReferencesPermissionEnforcement', () => {
  let server: TestServer;
  /** The uids of the owners: configmaps `owner` and `owner2`, and the namespace `default`. */
  const uids: Record<string, string> = {};

  const configMapOwner = (name: 'owner' | 'owner2', blockOwnerDeletion?: boolean): Owner => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name,
    uid: uids[name],
    ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }),
  });
  const namespaceOwner = (blockOwnerDeletion?: boolean): Owner => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    name: 'default',
    uid: uids.default,
    ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }),
  });

  beforeAll(async () => {
    server = await startServer({ flags: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement'] });
    for (const name of ['owner', 'owner2']) {
      const created = await server.request('POST', '/api/v1/namespaces/default/configmaps', {
        body: JSON.stringify({ metadata: { name } }),
        headers: json,
      });
      uids[name] = created.json<{ metadata: { uid: string } }>().metadata.uid;
    }
    uids.default = (await server.request('GET', '/api/v1/namespaces/default')).json<{
      metadata: { uid: string };
    }>().metadata.uid;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function send(
    method: 'POST' | 'PUT' | 'PATCH',
    path: string,
    body: object,
    headers: Record<string, string> = asAlice,
  ): Promise<{ status: number; message?: string }> {
    const answer = await server.request(method, path, {
      body: JSON.stringify(body),
      headers: {
        ...headers,
        'content-type': method === 'PATCH' ? 'application/merge-patch+json' : json['content-type'],
      },
    });
    const status = answer.json<{ message?: string }>();
    return answer.status < 300 ? { status: answer.status } : { status: answer.status, message: status.message };
  }

  const createConfigMap = (name: string, ownerReferences: Owner[], headers?: Record<string, string>) =>
    send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name, ownerReferences } }, headers);
  const setOwners = (name: string, ownerReferences: Owner[]) =>
    send('PATCH', `/api/v1/namespaces/default/configmaps/${name}`, { metadata: { ownerReferences } });

  /** Whether alice may `verb` the resource, once RBAC has seen the roles just written. */
  async function aliceMay(verb: string, resource: string, subresource = '', namespace = 'default'): Promise<boolean> {
    const review = await server.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'alice', resourceAttributes: { namespace, verb, resource, subresource } },
      }),
      headers: json,
    });
    return review.json<{ status: { allowed: boolean } }>().status.allowed;
  }

  async function writeRole(verbs: string[], finalizers: boolean): Promise<void> {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'cm' },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs },
        ...(finalizers ? [{ apiGroups: [''], resources: ['configmaps/finalizers'], verbs: ['update'] }] : []),
      ],
    };
    const answer = await server.request('PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/cm', {
      body: JSON.stringify(role),
      headers: json,
    });
    expect(answer.status).toBeLessThan(300);
  }

  it('changing owners needs delete, and blocking an owner needs its finalizers', async () => {
    await writeRole(['get', 'create', 'update', 'patch'], false);
    const binding = await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      body: JSON.stringify({
        metadata: { name: 'cm' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' },
        subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
      }),
      headers: json,
    });
    expect(binding.status).toBe(201);
    await waitUntil('alice may create configmaps', () => aliceMay('create', 'configmaps'));

    // A create may name owners; an update that keeps them needs nothing more.
    expect(await createConfigMap('a', [configMapOwner('owner')])).toEqual({ status: 201 });
    expect(await send('PATCH', '/api/v1/namespaces/default/configmaps/a', { data: { x: 'y' } })).toEqual({
      status: 200,
    });
    expect(await setOwners('a', [configMapOwner('owner2')])).toEqual({
      status: 403,
      message: `configmaps "a" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`,
    });
    expect(await createConfigMap('b', [configMapOwner('owner', true)])).toEqual({
      status: 403,
      message: `configmaps "b" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`,
    });
    expect(
      await createConfigMap('c', [{ ...configMapOwner('owner', true), apiVersion: 'example.com/v1', kind: 'Nope' }]),
    ).toEqual({
      status: 403,
      message: `configmaps "c" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Nope: no matches for kind "Nope" in version "example.com/v1"`,
    });
    expect(await createConfigMap('c', [{ ...configMapOwner('owner', true), kind: 'Deployment' }])).toEqual({
      status: 403,
      message: `configmaps "c" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion v1 Kind Deployment: no matches for kind "Deployment" in version "v1"`,
    });

    await writeRole(['get', 'create', 'update', 'patch', 'delete'], true);
    await waitUntil('alice may delete configmaps', () => aliceMay('delete', 'configmaps'));
    expect(await setOwners('a', [configMapOwner('owner2')])).toEqual({ status: 200 });
    expect(await createConfigMap('b', [configMapOwner('owner', true)])).toEqual({ status: 201 });
    // The namespace is cluster-scoped: a role in default grants nothing on its finalizers.
    const blockingNamespace = `configmaps "d" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`;
    expect(await createConfigMap('d', [namespaceOwner(true)])).toEqual({ status: 403, message: blockingNamespace });
    // Only the references that start blocking are checked.
    expect(await setOwners('b', [configMapOwner('owner', true), namespaceOwner()])).toEqual({ status: 200 });
    expect(await setOwners('b', [configMapOwner('owner', true), namespaceOwner(true)])).toEqual({
      status: 403,
      message: blockingNamespace.replace('"d"', '"b"'),
    });
    // Whoever may update every finalizers subresource (system:masters) may block any owner.
    expect(await createConfigMap('d', [namespaceOwner(true)], {})).toEqual({ status: 201 });
  });
});
