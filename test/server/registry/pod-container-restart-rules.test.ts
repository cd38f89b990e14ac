/**
 * With ContainerRestartRules, whether a container the stored status reports terminated may run
 * again is its own decision, as kube-apiserver 1.34.4 started with the gate answered pods/status
 * writes (fixtures/recorded-pod-container-restart-rules.json): a matching exit-code rule that
 * restarts, else the container's restart policy, else the pod's; a status of a container the
 * spec lacks may not run again even under Always, and each stored status is reported once.
 */
import { join } from 'node:path';
import { replayRecordedSteps } from './recorded-steps';

type Json = Record<string, unknown>;

replayRecordedSteps({
  fixture: join(__dirname, 'fixtures', 'recorded-pod-container-restart-rules.json'),
  resource: 'pods',
  namespace: 'default',
  // This server runs no service-account controller, so no `default` account: its pods are not the point here.
  flags: ['--disable-admission-plugins', 'ServiceAccount', '--feature-gates', 'ContainerRestartRules=true'],
  shown: (pod) => ({
    states: (((pod.status as Json).containerStatuses as Json[] | undefined) ?? []).map((status) =>
      Object.keys((status.state as Json | undefined) ?? {}),
    ),
  }),
});
