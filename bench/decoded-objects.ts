/**
 * What a stored object costs once decoded, as a watch cache keeps every object an event brings:
 * heap per pod and CPU per decode, for pods in the reference's protobuf storage form with the
 * managedFields a running pod has (its controller's entry, the same for every pod of its
 * ReplicaSet, and the kubelet's status entry, which names the pod's own IP).
 *
 * The heap of decoded objects is what old-generation marking walks, and so what a replica's
 * write tail under churn scales with (docs/benchmarks.md, the scale run). Measured in a child
 * process of its own (a fresh heap, `--expose-gc`): the values are made first, then decoded and
 * kept, and the heap's growth between two settled points is the decoded pods'.
 */
import type { Benchmark } from './benchmark';
import type { KubeObject } from '../api/objects';
import { BUILTIN_TYPES } from '../server/builtin-types';
import { storageValueCodec } from '../server/codec/storage-value';
import { answerProbe, runProbe } from './child-probe';
import { settledMemory } from './measure';
import { benchPod } from './pod';

const PODS = 10_000;
const DECODE_ROUNDS = 7;
const PROBE_TIMEOUT_MS = 180_000;

interface DecodedObjects {
  readonly pods: number;
  readonly heapBytesPerPod: number;
  readonly storedBytesPerPod: number;
  readonly decodeMicrosMedian: number;
}

export const decodedObjectsBenchmark: Benchmark = {
  name: 'decoded-objects',
  description: 'heap and CPU of a stored pod decoded from protobuf (in a fresh process)',
  run: async (context) => {
    context.log(`decoding ${PODS.toLocaleString('en-US')} pods`);
    const measured = await runProbe<number, DecodedObjects>(__filename, PODS, {
      name: 'the decoded objects probe',
      timeoutMs: PROBE_TIMEOUT_MS,
    });
    const note = `${measured.pods.toLocaleString('en-US')} pods kept decoded, growth after GC`;
    context.report({
      title: 'Stored pods decoded from protobuf',
      rows: [
        { metric: 'heap per decoded pod', value: measured.heapBytesPerPod, unit: 'bytes', note },
        { metric: 'stored value per pod', value: measured.storedBytesPerPod, unit: 'bytes' },
        {
          metric: 'decode, median of rounds',
          value: measured.decodeMicrosMedian,
          unit: 'µs',
          note: `${DECODE_ROUNDS} rounds of every pod`,
        },
      ],
    });
  },
};

const PODS_TYPE = BUILTIN_TYPES.find((type) => type.group === '' && type.resource === 'pods')!;

/** A pod as its ReplicaSet created it and its kubelet reported it running. */
function runningPod(index: number): KubeObject {
  const pod = benchPod({ namespace: 'bench', name: `web-7d4b9c8f6d-${index.toString(36)}`, index });
  const ip = `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;
  const entry = (manager: string, fieldsV1: Record<string, unknown>, subresource?: string) => ({
    manager,
    operation: 'Update',
    apiVersion: 'v1',
    time: pod.metadata.creationTimestamp,
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...(subresource === undefined ? {} : { subresource }),
  });
  const leaf = {};
  pod.metadata.managedFields = [
    entry('kube-controller-manager', {
      'f:metadata': {
        'f:generateName': leaf,
        'f:labels': { '.': leaf, 'f:app': leaf, 'f:pod-template-hash': leaf, 'f:shard': leaf, 'f:tier': leaf },
        'f:ownerReferences': { '.': leaf, 'k:{"uid":"11111111-2222-4333-8444-555555555555"}': leaf },
      },
      'f:spec': {
        'f:containers': {
          'k:{"name":"web"}': { '.': leaf, 'f:env': leaf, 'f:image': leaf, 'f:name': leaf, 'f:ports': leaf },
        },
        'f:volumes': { '.': leaf, 'k:{"name":"kube-api-access"}': leaf },
      },
    }),
    entry(
      'kubelet',
      {
        'f:status': {
          'f:conditions': { 'k:{"type":"Ready"}': { '.': leaf, 'f:status': leaf, 'f:type': leaf } },
          'f:podIP': leaf,
          'f:podIPs': { '.': leaf, [`k:{"ip":"${ip}"}`]: { '.': leaf, 'f:ip': leaf } },
        },
      },
      'status',
    ),
  ];
  return pod;
}

async function probe(pods: number): Promise<DecodedObjects> {
  const codec = storageValueCodec(PODS_TYPE, 'application/vnd.kubernetes.protobuf');
  const values = Array.from({ length: pods }, (_, index) => codec.encode(runningPod(index)));
  // Once, so that what the first decode compiles and caches is not counted.
  codec.decode(values[0]);
  const before = settledMemory();
  const decoded = values.map((value) => codec.decode(value));
  const after = settledMemory();
  if (before === undefined || after === undefined) throw new Error('no gc(): run with --expose-gc');
  const rounds: number[] = [];
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (const value of values) codec.decode(value);
    rounds.push(Number(process.hrtime.bigint() - started) / 1000 / values.length);
  }
  rounds.sort((a, b) => a - b);
  return {
    pods: decoded.length,
    heapBytesPerPod: Math.round((after.heapUsedBytes - before.heapUsedBytes) / decoded.length),
    storedBytesPerPod: Math.round(values.reduce((sum, value) => sum + value.length, 0) / values.length),
    decodeMicrosMedian: rounds[Math.floor(rounds.length / 2)],
  };
}

if (require.main === module) answerProbe(probe);
