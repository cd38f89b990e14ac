/**
 * Custom resources as a user drives them with the real kubectl 1.33 against a whole replica
 * over HTTPS, on the embedded SQLite store and on etcd (issue 14, "Must show"): create a CRD, wait until it is established, then get, apply,
 * apply --server-side, explain, edit, scale and delete its objects, with its printer columns in
 * `kubectl get`; invalid objects rejected with the schema's message and the CEL rules'
 * messages (a transition rule too); deleting the CRD removes its objects and its endpoints.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../helpers/in-process-server';
import type { KubectlResult } from '../helpers/server';

const FIXTURES = join(__dirname, 'fixtures', 'crd');
const fixture = (name: string) => join(FIXTURES, name);

function expectSuccess(result: KubectlResult): string {
  if (result.code !== 0) throw new Error(`kubectl failed (${result.code}):\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

describe.each(['SQLite', 'etcd'] as const)('on %s', (store) => {
  let server: InProcessServer;
  let scratch: string;

  let etcd: EtcdServer | undefined;

  beforeAll(async () => {
    if (store === 'etcd') etcd = await startEtcd();
    server = await startInProcessServer(etcd ? ['--etcd-servers', etcd.endpoints.join(',')] : []);
    scratch = mkdtempSync(join(tmpdir(), 'capstan-crd-'));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await etcd?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const kubectl = (...args: string[]) => server.kubectl(args);
  const ok = async (...args: string[]) => expectSuccess(await server.kubectl(args));

  test('a CRD and its objects through kubectl, from creation to deletion', async () => {
    expect(await ok('apply', '-f', fixture('widgets-crd.yaml'))).toBe(
      'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n',
    );
    expect(await ok('wait', '--for', 'condition=Established', '--timeout=20s', 'crd/widgets.example.com')).toBe(
      'customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met\n',
    );
    const conditions = JSON.parse(
      await ok('get', 'crd', 'widgets.example.com', '-o', 'jsonpath={.status.conditions}'),
    ) as { type: string; status: string }[];
    expect(conditions.map(({ type, status }) => `${type}=${status}`).sort()).toEqual([
      'Established=True',
      'NamesAccepted=True',
    ]);

    // create, then get with the printer columns (by plural, short name and category)
    expect(await ok('create', '-f', fixture('widget.yaml'))).toBe('widget.example.com/alpha created\n');
    expect(await ok('get', 'widgets')).toMatch(/^NAME\s+COLOR\s+REPLICAS\s+AGE\nalpha\s+red\s+1\s+\d+s\n$/);
    expect(await ok('get', 'wd', 'alpha', '-o', 'jsonpath={.spec}')).toBe('{"color":"red","replicas":1,"tags":["a"]}');
    expect(await ok('get', 'all')).toContain('widget.example.com/alpha');

    // client-side apply, then server-side apply of another field manager's change
    const applied = await server.kubectl(['apply', '-f', '-'], {
      input: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: alpha\nspec:\n  color: blue\n  tags: [a]\n',
    });
    expect(expectSuccess(applied)).toBe('widget.example.com/alpha configured\n');
    const serverSide = await server.kubectl(['apply', '--server-side', '--field-manager=tagger', '-f', '-'], {
      input: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: alpha\nspec:\n  color: blue\n  tags: [b]\n',
    });
    expect(expectSuccess(serverSide)).toBe('widget.example.com/alpha serverside-applied\n');
    // tags is a set: the two managers' items are merged, not replaced.
    expect(await ok('get', 'widget', 'alpha', '-o', 'jsonpath={.spec.tags}')).toBe('["a","b"]');

    // explain reads the CRD's schema from the published OpenAPI
    const explained = await ok('explain', 'widgets.spec');
    expect(explained).toContain('KIND:       Widget');
    expect(explained).toContain('What the widget should be.');
    expect(explained).toMatch(/color\s+<string> -required-/);

    // edit through an editor script
    const editor = join(scratch, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/color: blue/color: green/" "$1"\n');
    chmodSync(editor, 0o755);
    const edited = await server.kubectl(['edit', 'widget', 'alpha'], { env: { KUBE_EDITOR: editor, EDITOR: editor } });
    expect(expectSuccess(edited)).toBe('widget.example.com/alpha edited\n');
    expect(await ok('get', 'widget', 'alpha', '-o', 'jsonpath={.spec.color}')).toBe('green');

    // scale through the scale subresource
    expect(await ok('scale', 'widget', 'alpha', '--replicas=3')).toBe('widget.example.com/alpha scaled\n');
    expect(await ok('get', 'widgets')).toMatch(/\nalpha\s+green\s+3\s+/);

    // the schema rejects invalid objects with its messages
    const invalid = await server.kubectl(['create', '-f', '-'], {
      input: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: bad\nspec:\n  color: pink\n  replicas: -1\n',
    });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(
      'The Widget "bad" is invalid: \n* spec.color: Unsupported value: "pink": supported values: "red", "blue", "green"\n* spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    );

    // CEL rules: a rule on spec, and a transition rule comparing with the stored object
    const tooMany = await server.kubectl(['create', '-f', '-'], {
      input: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: many\nspec:\n  color: red\n  replicas: 20\n',
    });
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toContain(
      'The Widget "many" is invalid: spec: Invalid value: "object": a widget has at most 10 replicas',
    );
    await ok('patch', 'widget', 'alpha', '--type=merge', '-p', '{"spec":{"size":5}}');
    const shrunk = await kubectl('patch', 'widget', 'alpha', '--type=merge', '-p', '{"spec":{"size":3}}');
    expect(shrunk.code).toBe(1);
    expect(shrunk.stderr).toContain(
      'The Widget "alpha" is invalid: spec.size: Invalid value: "integer": size may not shrink',
    );
    expect(await ok('patch', 'widget', 'alpha', '--type=merge', '-p', '{"spec":{"size":7}}')).toBe(
      'widget.example.com/alpha patched\n',
    );

    expect(await ok('delete', 'widget', 'alpha')).toBe('widget.example.com "alpha" deleted\n');
    expect(await ok('get', 'widgets', '-o', 'name')).toBe('');

    // deleting the CRD deletes its objects first, then its endpoints go
    await ok('create', '-f', fixture('widget.yaml'));
    expect(await ok('delete', 'crd', 'widgets.example.com', '--timeout=30s')).toBe(
      'customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n',
    );
    expect(await ok('get', 'crd', '-o', 'name')).toBe('');
    // kubectl still has the type in its discovery cache, so it asks and the server says 404.
    const gone = await kubectl('get', 'widgets');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(
      'Error from server (NotFound): Unable to list "example.com/v1, Resource=widgets": the server could not find the requested resource',
    );
    expect((await kubectl('get', '--raw', '/apis/example.com/v1')).code).toBe(1);
    expect(await ok('get', '--raw', '/apis')).not.toContain('example.com');
    expect(await ok('get', '--raw', '/openapi/v3')).not.toContain('apis/example.com/v1');
  }, 120_000);
});
