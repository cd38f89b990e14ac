/**
 * The device health reports of container statuses (allocatedResourcesStatus), as kube-apiserver
 * 1.34.4 started with ResourceHealthStatus answered pods/status writes
 * (fixtures/recorded-pod-allocated-resources-status.json): each report names a resource the
 * container requests or one of its claims (`claim:<claim>[/<request>]`), a status of a container
 * the spec lacks is let be, health values are known and resource ids unique within a report, an
 * ephemeral container's status reports none; after the container users, in the reference's order.
 */
import { join } from 'node:path';
import { replayRecordedSteps } from './recorded-steps';

type Json = Record<string, unknown>;

replayRecordedSteps({
  fixture: join(__dirname, 'fixtures', 'recorded-pod-allocated-resources-status.json'),
  resource: 'pods',
  namespace: 'default',
  // This server runs no service-account controller, so no `default` account: its pods are not the point here.
  flags: ['--disable-admission-plugins', 'ServiceAccount', '--feature-gates', 'ResourceHealthStatus=true'],
  shown: (pod) => ({
    allocated: (((pod.status as Json).containerStatuses as Json[] | undefined) ?? []).map(
      (status) => status.allocatedResourcesStatus ?? null,
    ),
  }),
});
