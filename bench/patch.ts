/**
 * Patch engines on a large object: server-side apply of a 50-container pod spec onto the live
 * pod it created (a re-apply with one image changed, the common steady state) and a strategic
 * merge patch changing one container's image and adding an env var. Pure functions, no
 * storage: the figures are the engines' own cost per request.
 */
import { performance } from 'node:perf_hooks';
import { serverSideApply } from '../server/apply/apply';
import { rootSchemaNode } from '../server/apply/schema-node';
import { applyStrategicMergePatch } from '../server/patch/strategic-merge';
import { schemaData } from '../server/schema/definitions';
import type { Definitions } from '../server/validation/decode';
import type { KubeObject } from '../api/objects';
import type { Benchmark } from './benchmark';

const CONTAINERS = 50;
const MAX_MS = 3000;
const MAX_OPERATIONS = 20000;

function podConfig(image: (index: number) => string): Record<string, unknown> {
  const containers = Array.from({ length: CONTAINERS }, (_, index) => ({
    name: `c${index}`,
    image: image(index),
    ports: [{ containerPort: 8000 + index, name: `p${index}` }],
    env: [
      { name: 'INDEX', value: String(index) },
      { name: 'MODE', value: 'bench' },
    ],
    resources: { requests: { cpu: '10m', memory: '16Mi' } },
  }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'big', namespace: 'default', labels: { app: 'big' } },
    spec: { containers },
  };
}

/** Runs `operation` until the count or the deadline, whichever comes first. */
function opsPerSecond(operation: (index: number) => void): { perSecond: number; operations: number } {
  const begin = performance.now();
  let operations = 0;
  while (operations < MAX_OPERATIONS && performance.now() - begin < MAX_MS) operation(operations++);
  return { perSecond: (operations / (performance.now() - begin)) * 1000, operations };
}

export function measurePatchEngines(): {
  apply: { perSecond: number; operations: number };
  strategic: { perSecond: number; operations: number };
} {
  const definitions = schemaData().definitions as unknown as Definitions;
  const schema = rootSchemaNode(definitions, 'io.k8s.api.core.v1.Pod');
  const now = new Date('2025-01-01T00:00:00Z');
  const request = { manager: 'bench', apiVersion: 'v1', kind: 'Pod', force: false, now, schema } as const;
  const live = serverSideApply({ ...request, live: undefined, config: podConfig(() => 'img:1') }).object as KubeObject;
  const apply = opsPerSecond((index) => {
    serverSideApply({
      ...request,
      live,
      config: podConfig((container) => (container === index % CONTAINERS ? 'img:2' : 'img:1')),
    });
  });
  const strategic = opsPerSecond((index) => {
    const name = `c${index % CONTAINERS}`;
    applyStrategicMergePatch(
      live,
      { spec: { containers: [{ name, image: 'img:3', env: [{ name: 'EXTRA', value: 'x' }] }] } },
      schema,
    );
  });
  return { apply, strategic };
}

export const patchBenchmark: Benchmark = {
  name: 'patch',
  description: `server-side apply and strategic merge patch of a ${CONTAINERS}-container pod (in process, one core)`,
  async run(context) {
    context.log('measuring');
    const { apply, strategic } = measurePatchEngines();
    context.report({
      title: `Patch engines, ${CONTAINERS}-container pod`,
      rows: [
        {
          metric: 'server-side apply (re-apply, one image changed)',
          value: Math.round(apply.perSecond),
          unit: 'ops/s',
          note: `${apply.operations} ops`,
        },
        {
          metric: 'strategic merge patch (one container)',
          value: Math.round(strategic.perSecond),
          unit: 'ops/s',
          note: `${strategic.operations} ops`,
        },
      ],
    });
  },
};
