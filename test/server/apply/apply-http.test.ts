/**
 * Server-side apply over HTTPS through the real handler chain (see apply-server.ts), with the
 * CBOR gate on: body formats, typed refusals, PatchOptions checks, create permission for
 * create-through-apply, and apply on the scale subresource.
 */
import { encodeCbor } from '../../../server/codec/cbor';
import { startApplyServer, type Answer, type ApplyServer, type Identity, type Json } from './apply-server';

let server: ApplyServer;

beforeAll(async () => {
  server = await startApplyServer({ representations: { cbor: true, compression: false } });
});

afterAll(async () => {
  await server?.close();
});

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function patch(path: string, contentType: string, body: string | Uint8Array | Json, as?: Identity): Promise<Answer> {
  const encoded = typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  return server.request('PATCH', path, { as, contentType, body: encoded });
}

function managedFieldsOf(object: Json): Json[] {
  return ((object.metadata as Json).managedFields ?? []) as Json[];
}

describe('apply bodies', () => {
  test('with the gate on, an apply body may be CBOR, and the 415 lists that type', async () => {
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-cbor' }, data: { a: '1' } };
    const created = await patch(
      `${CONFIGMAPS}/from-cbor?fieldManager=ctl`,
      'application/apply-patch+cbor',
      encodeCbor(config),
    );
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: '1' });

    const malformed = await patch(
      `${CONFIGMAPS}/from-cbor?fieldManager=ctl`,
      'application/apply-patch+cbor',
      Uint8Array.from([0xa1]),
    );
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/^error decoding CBOR: /);

    // A type no PATCH route declares is the router's 415 (kube-apiserver 1.34.4 answers so).
    const unknown = await patch(`${CONFIGMAPS}/from-cbor`, 'text/plain', 'x');
    expect(unknown.body.message).toBe('415: Unsupported Media Type');
  });

  test('YAML bodies: repeated keys are a warning by default; a non-object and a configuration of another kind are 400', async () => {
    const repeated = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: warned\ndata:\n  a: "1"\n  a: "2"\n';
    const warned = await patch(`${CONFIGMAPS}/warned?fieldManager=ctl`, APPLY, repeated);
    expect(warned.status).toBe(201);
    expect(warned.warning).toBe('299 - "line 7: key \\"a\\" already set in map"');

    const list = await patch(`${CONFIGMAPS}/warned?fieldManager=ctl`, APPLY, '- a\n- b\n');
    expect(list.status).toBe(400);
    // As kube-apiserver 1.34.4 words it: its YAML reader decodes the JSON it converts to.
    expect(list.body.message).toBe(
      'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}',
    );

    const otherKind = await patch(`${CONFIGMAPS}/warned?fieldManager=ctl`, APPLY, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'warned' },
    });
    expect(otherKind.status).toBe(400);
    expect(otherKind.body.message).toBe('invalid object type: /v1, Kind=Secret');
  });

  test('a configuration of another kind is refused as such before its fields are typed', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cm' },
      type: 'Opaque',
      stringData: { a: 'b' },
    };
    const answer = await patch(`${CONFIGMAPS}/cm?fieldManager=ctl`, APPLY, secret);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('invalid object type: /v1, Kind=Secret');
  });
});

describe('values of the wrong type are refused before merging, as the reference types the patch', () => {
  const spec = (replicas: unknown): Json => ({
    replicas,
    selector: { matchLabels: { app: 'typed' } },
    template: { metadata: { labels: { app: 'typed' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
  });

  test('a string where a number belongs: 400 with the typed-patch text (the reference: 500), nothing stored', async () => {
    const answer = await patch(
      `${DEPLOYMENTS}/typed?fieldManager=alice`,
      APPLY,
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: typed\nspec:\n  replicas: "two"\n',
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'failed to create typed patch object (/typed; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string',
      reason: 'BadRequest',
      code: 400,
    });
    expect((await server.request('GET', `${DEPLOYMENTS}/typed`)).status).toBe(404);
  });

  test('each kind of mismatch in its reference wording; several are listed under errors:', async () => {
    const config = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'typed', namespace: 'default', labels: { tier: 5 } },
      spec: { ...spec(2), paused: 'yes', selector: ['app'], template: { spec: { containers: { name: 'c' } } } },
    };
    const answer = await patch(`${DEPLOYMENTS}/typed?fieldManager=alice`, APPLY, config);
    expect(answer.status).toBe(400);
    // The reference lists them in Go's map order, which differs from one request to the next;
    // capstan in the order of the members its YAML reading sorts as Go's JSON encoder does.
    expect(answer.body.message).toBe(
      'failed to create typed patch object (default/typed; apps/v1, Kind=Deployment): errors:\n' +
        '  .metadata.labels.tier: expected string, got &value.valueUnstructured{Value:5}\n' +
        '  .spec.paused: expected boolean, got &{yes}\n' +
        '  .spec.selector: expected map, got &{[app]}\n' +
        '  .spec.template.spec.containers: expected list, got &{map[name:c]}',
    );
  });

  test('an int-or-string takes either scalar but not a map', async () => {
    const config = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'typed' },
      spec: { ...spec(2), strategy: { rollingUpdate: { maxSurge: { percent: 5 } } } },
    };
    const answer = await patch(`${DEPLOYMENTS}/typed?fieldManager=alice`, APPLY, config);
    expect(answer.body.message).toBe(
      'failed to create typed patch object (/typed; apps/v1, Kind=Deployment): .spec.strategy.rollingUpdate.maxSurge: expected any scalar, got &{map[percent:5]}',
    );
    const fine = await patch(`${DEPLOYMENTS}/typed?fieldManager=alice`, APPLY, {
      ...config,
      spec: { ...spec(2), strategy: { rollingUpdate: { maxSurge: '50%' } } },
    });
    expect(fine.status).toBe(201);
  });

  test('an associative list names each element once: a second with the same key is refused, nothing stored', async () => {
    // kube-apiserver 1.34.4 answers these words (as a 500; a 400 here, as every bad body).
    const container = (env: unknown[]) => ({ name: 'c', image: 'x', env });
    const config = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'twice' },
      spec: {
        ...spec(2),
        template: {
          metadata: { labels: { app: 'typed' } },
          spec: {
            containers: [
              container([
                { name: 'A', value: '1' },
                { name: 'A', value: '2' },
              ]),
            ],
          },
        },
      },
    };
    const answer = await patch(`${DEPLOYMENTS}/twice?fieldManager=alice`, APPLY, config);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(
      'failed to create typed patch object (/twice; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="c"].env: duplicate entries for key [name="A"]',
    );
    expect((await patch(`${DEPLOYMENTS}/twice?fieldManager=alice`, APPLY, { ...config, spec: spec(2) })).status).toBe(
      201,
    );
  });
});

describe('PatchOptions are checked in the reference order', () => {
  test('force is forbidden on a non-apply patch, even force=false', async () => {
    for (const value of ['true', 'false']) {
      const answer = await patch(`${CONFIGMAPS}/from-cbor?force=${value}`, MERGE, { data: { b: '2' } });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toBe(
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
      );
    }
  });

  test('fieldManager errors come before dryRun errors', async () => {
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'order' } };
    const apply = await patch(`${CONFIGMAPS}/order?dryRun=Some`, APPLY, config);
    expect(apply.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: [fieldManager: Required value: is required for apply patch, dryRun: Unsupported value: ["Some"]: supported values: "All"]',
    );
    const merge = await patch(`${CONFIGMAPS}/order?dryRun=Some&force=true&fieldManager=${'m'.repeat(129)}`, MERGE, {});
    expect(merge.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, fieldManager: Too long: may not be more than 128 bytes, dryRun: Unsupported value: ["Some"]: supported values: "All"]',
    );
  });
});

describe('apply that creates needs create permission', () => {
  const config = (name: string): Json => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    data: { a: '1' },
  });

  test('without any grant the request is denied for its own verb, patch', async () => {
    const denied = await patch(`${CONFIGMAPS}/by-bob?fieldManager=bob`, APPLY, config('by-bob'), 'bob');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(
      'configmaps "by-bob" is forbidden: User "bob" cannot patch resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  test('patch alone updates through apply but cannot create; with create it can; masters always can', async () => {
    server.devVerbs.add('patch');
    try {
      const refused = await patch(`${CONFIGMAPS}/by-jane?fieldManager=jane`, APPLY, config('by-jane'), 'jane');
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({
        reason: 'Forbidden',
        message: 'configmaps "by-jane" is forbidden: ',
        details: { name: 'by-jane', kind: 'configmaps' },
      });
      expect((await server.request('GET', `${CONFIGMAPS}/by-jane`)).status).toBe(404);

      // An existing object is a patch, which jane may do.
      expect((await patch(`${CONFIGMAPS}/by-admin?fieldManager=admin`, APPLY, config('by-admin'))).status).toBe(201);
      const updated = await patch(
        `${CONFIGMAPS}/by-admin?fieldManager=jane`,
        APPLY,
        { ...config('by-admin'), data: { b: '2' } },
        'jane',
      );
      expect(updated.status).toBe(200);
      expect(updated.body.data).toEqual({ a: '1', b: '2' });

      server.devVerbs.add('create');
      expect((await patch(`${CONFIGMAPS}/by-jane?fieldManager=jane`, APPLY, config('by-jane'), 'jane')).status).toBe(
        201,
      );
    } finally {
      server.devVerbs.clear();
    }
  });
});

describe('apply on the scale subresource', () => {
  const web = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
    },
  };
  const scale = (replicas: number): Json => ({
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: 'web' },
    spec: { replicas },
  });
  const SCALE = `${DEPLOYMENTS}/web/scale`;

  /** The entries with their times checked (present or not) and left out. */
  function entries(object: Json, timed: Record<string, boolean>): Json[] {
    return managedFieldsOf(object).map(({ time, ...entry }) => {
      if (timed[entry.manager as string]) expect(time).toMatch(RFC3339);
      else expect(time).toBeUndefined();
      return entry;
    });
  }

  test("the scale subresource takes the apply types; another type is the router's 415", async () => {
    const answer = await patch(SCALE, 'text/plain', 'x');
    expect(answer.status).toBe(415);
    expect(answer.body.message).toBe('415: Unsupported Media Type');
    expect((await patch(SCALE, 'application/apply-patch+cbor', Uint8Array.from([0xa1]))).status).not.toBe(415);
  });

  test('an apply of spec.replicas conflicts with the owner of the parent replicas, and forced takes them onto the Deployment', async () => {
    expect((await patch(`${DEPLOYMENTS}/web?fieldManager=kubectl`, APPLY, web)).status).toBe(201);

    const refused = await patch(`${SCALE}?fieldManager=hpa`, APPLY, scale(5));
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');

    const forced = await patch(`${SCALE}?fieldManager=hpa&force=true`, APPLY, scale(5));
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 5 },
      status: { selector: 'app=web' },
    });
    expect((forced.body.metadata as Json).managedFields).toBeUndefined();

    const deployment = (await server.request('GET', `${DEPLOYMENTS}/web`)).body;
    expect((deployment.spec as Json).replicas).toBe(5);
    // Entries written through the scale subresource carry no time, as the reference's do, so sort first.
    expect(entries(deployment, { kubectl: true })).toEqual([
      {
        manager: 'hpa',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
        subresource: 'scale',
      },
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': {
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
            },
          },
        },
      },
    ]);

    // The same apply again changes nothing.
    const again = await patch(`${SCALE}?fieldManager=hpa`, APPLY, scale(5));
    expect(again.status).toBe(200);
    expect((again.body.metadata as Json).resourceVersion).toBe((forced.body.metadata as Json).resourceVersion);
  });

  test('a merge patch of the Scale (kubectl scale) takes replicas from the applier as an Update on scale', async () => {
    const scaled = await patch(`${SCALE}?fieldManager=kubectl-scale`, MERGE, { spec: { replicas: 3 } });
    expect(scaled.status).toBe(200);
    expect((scaled.body.spec as Json).replicas).toBe(3);
    const deployment = (await server.request('GET', `${DEPLOYMENTS}/web`)).body;
    expect((deployment.spec as Json).replicas).toBe(3);
    expect(
      entries(deployment, { kubectl: true }).map((entry) => [
        entry.manager,
        entry.operation,
        entry.apiVersion,
        entry.subresource,
      ]),
    ).toEqual([
      ['kubectl', 'Apply', 'apps/v1', undefined],
      ['kubectl-scale', 'Update', 'apps/v1', 'scale'],
    ]);
    expect(managedFieldsOf(deployment)[1].fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });

    // hpa's next apply of another value conflicts with that updater, named in the Scale's version.
    const refused = await patch(`${SCALE}?fieldManager=hpa`, APPLY, scale(4));
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-scale" with subresource "scale" using autoscaling/v1: .spec.replicas',
    );
  });
});
