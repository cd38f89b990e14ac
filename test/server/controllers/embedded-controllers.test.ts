/**
 * `--controllers` turns capstan's copies of the controller manager's controllers off where a
 * real controller manager runs, in that manager's own syntax: here the garbage collector and
 * the service-account controller are off, and the root-CA publisher (not named) still runs.
 */
import { FlagError, parseFlags } from '../../../server/config/flags';
import { controllerEnabled } from '../../../server/config/controller-selection';
import { startServer, type TestServer } from '../../helpers/server';
import { retryUntil, waitUntil } from '../../helpers/wait-for';

const QUIET_MS = 3_000;

describe('the selection', () => {
  test.each<[string[], boolean]>([
    [['*'], true],
    [['*', '-garbage-collector-controller'], false],
    [['garbage-collector-controller', '-garbage-collector-controller'], false],
    [['garbage-collector-controller'], true],
    [['namespace-controller'], false],
    [[], false],
  ])('%j runs the garbage collector: %s', (selection, runs) => {
    expect(controllerEnabled(selection, 'garbage-collector-controller')).toBe(runs);
  });

  test("flags: the default runs all; an empty value none; an unknown name is refused in the controller manager's words", () => {
    const parsed = (argv: string[]) => {
      const result = parseFlags(argv);
      if (!('options' in result)) throw new Error('expected options');
      return result.options.controllers;
    };
    expect(parsed([])).toEqual(['*']);
    expect(parsed(['--controllers='])).toEqual([]);
    expect(parsed(['--controllers=*,-namespace-controller'])).toEqual(['*', '-namespace-controller']);
    expect(() => parseFlags(['--controllers=*,-replicaset-controller'])).toThrow(
      new FlagError(
        'invalid argument "*,-replicaset-controller" for "--controllers" flag: "replicaset-controller" is not in the list of known controllers',
      ),
    );
  });
});

describe('a server with --controllers=*,-garbage-collector-controller,-serviceaccount-controller', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ flags: ['--controllers=*,-garbage-collector-controller,-serviceaccount-controller'] });
  });

  afterAll(async () => {
    await server?.stop();
  });

  test("the remaining controllers' Lease has the uid and creation time every stored object has", async () => {
    const read = () =>
      server.kubectl([
        'get',
        'lease',
        'capstan-controllers',
        '-n',
        'kube-system',
        '-o',
        'jsonpath={.metadata.uid} {.metadata.creationTimestamp}',
      ]);
    const lease = await retryUntil(read, (result) => result.code === 0, 10_000, 200);
    expect(lease.stdout).toMatch(/^[0-9a-f-]{36} \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  test('leaves dependents of a deleted owner and namespaces without a default ServiceAccount, and still publishes the root CA', async () => {
    const owner = await server.kubectl(['create', 'configmap', 'owner', '-o', 'jsonpath={.metadata.uid}']);
    expect(owner.code).toBe(0);
    const dependent = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'dependent',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.stdout }],
      },
    };
    expect((await server.kubectl(['create', '-f', '-'], { input: JSON.stringify(dependent) })).code).toBe(0);
    expect((await server.kubectl(['create', 'namespace', 'team'])).code).toBe(0);
    expect((await server.kubectl(['delete', 'configmap', 'owner'])).code).toBe(0);

    await waitUntil(
      'kube-root-ca.crt published',
      async () => (await server.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', 'team'])).code === 0,
      20_000,
      200,
    );
    // The controllers turned off must do nothing: there is no condition to wait for, only a time
    // in which a running collector or service-account controller would have acted.
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    expect((await server.kubectl(['get', 'configmap', 'dependent'])).code).toBe(0);
    expect((await server.kubectl(['get', 'serviceaccounts', '-n', 'team', '-o', 'name'])).stdout).toBe('');
  }, 40_000);
});
