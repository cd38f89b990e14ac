import type { KubeObject } from '../../../api/objects';
import { builtinRegistry } from '../../../server/builtin-types';
import { DEFAULT_CONTEXT } from '../../helpers/write-context';

const registry = builtinRegistry();
const deployments = registry.find({ group: 'apps', version: 'v1' }, 'deployments')!;
const configmaps = registry.find({ group: '', version: 'v1' }, 'configmaps')!;
const nodes = registry.find({ group: '', version: 'v1' }, 'nodes')!;

function stored(): KubeObject {
  const deployment: KubeObject = {
    metadata: { name: 'web', namespace: 'd', labels: { a: '1' }, uid: 'u', generation: 7 },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
    status: { replicas: 1 },
  };
  deployments.strategy.prepareForCreate!(deployment, DEFAULT_CONTEXT);
  deployment.status = { replicas: 1, observedGeneration: 1 };
  return deployment;
}

describe('generic strategy', () => {
  test.each<[string, (next: KubeObject) => void, number]>([
    ['spec change bumps generation', (next) => ((next.spec as { replicas: number }).replicas = 3), 2],
    ['label change keeps generation', (next) => (next.metadata.labels = { a: '2' }), 1],
    ['deployment annotation change bumps generation', (next) => (next.metadata.annotations = { note: 'x' }), 2],
    ['status sent on the main resource is ignored', (next) => (next.status = { replicas: 9 }), 1],
  ])('%s', (_name, change, generation) => {
    const old = stored();
    const next = structuredClone(old);
    change(next);
    deployments.strategy.prepareForUpdate!(next, old, DEFAULT_CONTEXT);
    expect(next.metadata.generation).toBe(generation);
    expect(next.status).toEqual({ replicas: 1, observedGeneration: 1 });
  });

  test('create resets status and starts generation at 1', () => {
    const created = stored();
    expect(created.metadata.generation).toBe(1);
  });

  test('status update keeps everything but status, and the protected metadata', () => {
    const old = stored();
    const next = structuredClone(old);
    next.status = { replicas: 3 };
    (next.spec as { replicas: number }).replicas = 5;
    next.metadata.labels = { hacked: 'yes' };
    deployments.strategy.prepareForStatusUpdate!(next, old, DEFAULT_CONTEXT);
    expect(next).toEqual({ ...old, status: { replicas: 3 } });
  });

  test('kinds without generation tracking keep what the client sent, as the reference does', () => {
    const configMap: KubeObject = { metadata: { name: 'c', namespace: 'd', generation: 4 }, data: { a: 'b' } };
    configmaps.strategy.prepareForCreate!(configMap, DEFAULT_CONTEXT);
    expect(configMap.metadata.generation).toBe(4);
    const update: KubeObject = { metadata: { name: 'c', namespace: 'd', generation: 9 }, data: { a: 'c' } };
    configmaps.strategy.prepareForUpdate!(update, configMap, DEFAULT_CONTEXT);
    expect(update.metadata.generation).toBe(4);
  });

  test('nodes keep the status sent on create', () => {
    const node: KubeObject = { metadata: { name: 'n1' }, status: { capacity: { cpu: '2' } } };
    nodes.strategy.applyDefaults!(node, 'v1');
    nodes.strategy.prepareForCreate!(node, DEFAULT_CONTEXT);
    expect(node.status).toEqual({ capacity: { cpu: '2' }, allocatable: { cpu: '2' } });
  });
});
