/**
 * CronJob schedules as kube-apiserver 1.34.4 reads them, with robfig/cron's standard parser
 * (fixtures/cron-schedules.json, recorded by tools/reference/record-answers.ts): ranges past a
 * field's bounds, steps, names of months and days, descriptors and `@every` durations, `TZ=`
 * locations, each refused in the parser's words or taken (dry runs).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'cron-schedules.json'));
