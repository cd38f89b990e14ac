/**
 * Status writes of workloads, budgets, autoscalers, services, claims and nodes as
 * kube-apiserver 1.34.4 answers them (fixtures/status-and-duplicate-answers.json, recorded by
 * tools/reference/record-answers.ts): their validation, and the fields a write is credited with
 * where a keyed list holds one key twice (owned by the key alone, no members) and where a new
 * element has times Go holds by value (a condition's lastTransitionTime, null, is owned).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'status-and-duplicate-answers.json'));
