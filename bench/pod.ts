/**
 * A Pod as a controller-made one looks in storage (labels, owner, one container with env,
 * a probe and resources, volumes, a running status): about 2.4 KB of JSON, the size the
 * storage figures are meant to speak for.
 */
import type { KubeObject } from '../api/objects';

export function benchPod(identity: { namespace: string; name: string; index: number }): KubeObject {
  const { namespace, name, index } = identity;
  const uid = `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
  const created = new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString().replace('.000Z', 'Z');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid,
      creationTimestamp: created,
      generateName: 'web-7d4b9c8f6d-',
      labels: { app: 'web', tier: 'frontend', 'pod-template-hash': '7d4b9c8f6d', shard: String(index % 16) },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web-7d4b9c8f6d',
          uid: '11111111-2222-4333-8444-555555555555',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/team/web:1.27.3',
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'LOG_LEVEL', value: 'info' }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, periodSeconds: 10 },
          volumeMounts: [
            { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
          ],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      volumes: [
        {
          name: 'kube-api-access',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            ],
          },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      nodeName: `node-${index % 50}`,
      schedulerName: 'default-scheduler',
    },
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: created,
      })),
      hostIP: `10.0.${index % 50}.1`,
      podIP: `10.244.${(index >> 8) & 255}.${index & 255}`,
      startTime: created,
      qosClass: 'Burstable',
      containerStatuses: [
        {
          name: 'web',
          ready: true,
          started: true,
          restartCount: 0,
          image: 'registry.example.com/team/web:1.27.3',
          imageID:
            'registry.example.com/team/web@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
          containerID: `containerd://${index.toString(16).padStart(64, '0')}`,
          state: { running: { startedAt: created } },
        },
      ],
    },
  };
}

/**
 * The pod as a client sends it for a create: no uid, timestamps or status (the server sets
 * those), and no owner (the garbage collector would delete pods of a missing ReplicaSet).
 */
export function benchPodRequest(
  identity: { namespace: string; name: string; index: number },
  annotations?: Record<string, string>,
): Buffer {
  const pod = benchPod(identity);
  const { name, namespace, labels } = pod.metadata;
  return Buffer.from(
    JSON.stringify({
      apiVersion: pod.apiVersion,
      kind: pod.kind,
      metadata: { name, namespace, labels, annotations },
      spec: pod.spec,
    }),
  );
}
