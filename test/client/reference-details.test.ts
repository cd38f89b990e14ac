/**
 * Details where a 1.34 server was found to answer otherwise (each expectation read from
 * kube-apiserver v1.34.4): RoleBinding defaults, the core Event `source` field selector, the
 * deprecated v1 Endpoints, and the ConfigMap and Secret Table column types.
 */
import { startServer, type TestServer } from '../helpers/server';

describe('reference details', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("defaults a binding's empty roleRef and subject API groups as the reference does", async () => {
    const binding =
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: rb1, namespace: default}\n' +
      'roleRef: {kind: ClusterRole, name: view}\n' +
      'subjects: [{kind: User, name: u1}, {kind: ServiceAccount, name: sa1, namespace: default}, {kind: Group, name: g1}]\n';
    const created = await server.kubectl(['create', '-f', '-', '-o', 'json'], { input: binding });
    expect(created.code).toBe(0);
    const object = JSON.parse(created.stdout);
    expect({ roleRef: object.roleRef, subjects: object.subjects }).toEqual({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'u1' },
        { kind: 'ServiceAccount', name: 'sa1', namespace: 'default' },
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'g1' },
      ],
    });
  });

  it('selects core Events by source, falling back to the reporting controller', async () => {
    const event = (name: string, extra: string) =>
      `apiVersion: v1\nkind: Event\nmetadata: {name: ${name}, namespace: default}\ninvolvedObject: {kind: Pod, name: p, namespace: default}\n${extra}\n`;
    expect(
      (await server.kubectl(['create', '-f', '-'], { input: event('by-component', 'source: {component: kubelet}') }))
        .code,
    ).toBe(0);
    expect(
      (
        await server.kubectl(['create', '-f', '-'], {
          input: event(
            'by-controller',
            'reportingComponent: example.com/ctl\nreportingInstance: i1\naction: Made\nreason: Made\neventTime: "2026-01-01T00:00:00.000000Z"',
          ),
        })
      ).code,
    ).toBe(0);
    const kubelet = await server.kubectl([
      'get',
      'events',
      '-n',
      'default',
      '--field-selector',
      'source=kubelet',
      '-o',
      'name',
    ]);
    expect(kubelet.stdout).toBe('event/by-component\n');
    const controller = await server.kubectl([
      'get',
      'events',
      '-n',
      'default',
      '--field-selector',
      'source=example.com/ctl',
      '-o',
      'name',
    ]);
    expect(controller.stdout).toBe('event/by-controller\n');
  });

  it('warns of the deprecated v1 Endpoints and counts the request', async () => {
    const answer = await server.request('GET', '/api/v1/namespaces/default/endpoints');
    expect(answer.status).toBe(200);
    expect(answer.headers.warning).toBe(
      '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"',
    );
    const metrics = await server.request('GET', '/metrics');
    expect(metrics.body).toContain(
      'apiserver_requested_deprecated_apis{group="",version="v1",resource="endpoints",subresource="",removed_release=""} 1',
    );
  });

  it('types the Data columns of ConfigMaps and Secrets as the reference does', async () => {
    const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    for (const [resource, columns] of [
      [
        'configmaps',
        [
          ['Name', 'string'],
          ['Data', 'string'],
          ['Age', 'string'],
        ],
      ],
      [
        'secrets',
        [
          ['Name', 'string'],
          ['Type', 'string'],
          ['Data', 'string'],
          ['Age', 'string'],
        ],
      ],
    ] as const) {
      const answer = await server.request('GET', `/api/v1/namespaces/default/${resource}`, {
        headers: { Accept: table },
      });
      const { columnDefinitions } = answer.json<{ columnDefinitions: { name: string; type: string }[] }>();
      expect(columnDefinitions.map(({ name, type }) => [name, type])).toEqual(columns);
    }
  });
});
