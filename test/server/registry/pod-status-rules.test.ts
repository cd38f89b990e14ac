/**
 * The rules of a pod status write, as kube-apiserver 1.34.4 answered merge patches and PUTs of
 * pods/status (fixtures/recorded-pod-status-rules.json): a condition's observedGeneration is not
 * negative and a type the system does not set is a qualified name (at the reference's `Type`);
 * status.observedGeneration is not negative; qosClass may not change; a container the stored
 * status reports terminated may not run again unless the stored restart policy restarts it
 * (restartable init containers always may, ephemeral ones never); a change of spec.nodeName
 * through the status is dropped with the rest of the spec, never refused; the rules in the
 * reference's order.
 */
import { join } from 'node:path';
import { replayRecordedSteps } from './recorded-steps';

type Json = Record<string, unknown>;

replayRecordedSteps({
  fixture: join(__dirname, 'fixtures', 'recorded-pod-status-rules.json'),
  resource: 'pods',
  namespace: 'default',
  // This server runs no service-account controller, so no `default` account: its pods are not the point here.
  flags: ['--disable-admission-plugins', 'ServiceAccount'],
  shown: (pod) => ({
    nodeName: (pod.spec as Json).nodeName ?? null,
    qosClass: (pod.status as Json).qosClass ?? null,
  }),
});
