/**
 * pods/resize on a pod with ephemeral containers, as kube-apiserver 1.34.4 answered it
 * (fixtures/recorded-resize-ephemeral-containers.json): the resize keeps them as stored whatever
 * its body says of them (left out, changed, added to, set null, removed by a JSON patch), and
 * a body that adds a container is refused for that alone.
 */
import { join } from 'node:path';
import { replayRecordedSteps } from '../registry/recorded-steps';

type Json = Record<string, unknown>;

replayRecordedSteps({
  fixture: join(__dirname, 'fixtures', 'recorded-resize-ephemeral-containers.json'),
  resource: 'pods',
  namespace: 'default',
  // This server runs no service-account controller, so no `default` account: its pods are not the point here.
  flags: ['--disable-admission-plugins', 'ServiceAccount'],
  shown: (pod) => {
    const spec = pod.spec as Json;
    return {
      generation: (pod.metadata as Json).generation,
      resources: (spec.containers as Json[]).map((container) => container.resources),
      ephemeralContainers: spec.ephemeralContainers ?? null,
    };
  },
});
