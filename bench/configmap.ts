/**
 * The ConfigMap the benchmarks write: a label and about 220 bytes of data, a small object next
 * to the 2.4 KB pod of pod.ts.
 */
export function benchConfigMapRequest(
  identity: { name: string; index: number },
  annotations?: Record<string, string>,
): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: identity.name, labels: { app: 'bench' }, annotations },
      data: { index: String(identity.index), note: 'x'.repeat(200) },
    }),
  );
}
