/**
 * A CronJob's time zone warning. Validation refuses `TZ`/`CRON_TZ` in a new schedule, so only a
 * CronJob stored before that rule (by an older server) can carry one; the reference then warns on
 * each update of it, naming the field `spec.spec.schedule` (pkg/registry/batch/cronjob/strategy.go),
 * and never on a create. Called directly, since no write through today's API can store one.
 */
import type { KubeObject } from '../../../api/objects';
import { cronJobWarnings } from '../../../server/validation/workload-warnings';
import { DEFAULT_CONTEXT } from '../../helpers/write-context';

const TZ_WARNING =
  'cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details';

function cronJob(schedule: string, generation: number): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'c', namespace: 'default', generation },
    spec: { schedule, jobTemplate: { spec: { template: { spec: { containers: [] } } } } },
  };
}

test('an update of a stored schedule with a time zone warns, whatever it changed', () => {
  const old = cronJob('CRON_TZ=UTC 0 * * * *', 1);
  expect(cronJobWarnings(cronJob('CRON_TZ=UTC 0 * * * *', 1), old, DEFAULT_CONTEXT)).toEqual([TZ_WARNING]);
});

test('a schedule without one does not', () => {
  expect(cronJobWarnings(cronJob('0 * * * *', 2), cronJob('0 * * * *', 1), DEFAULT_CONTEXT)).toEqual([]);
});
