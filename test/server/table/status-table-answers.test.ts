/**
 * Tables of objects with status, as kube-apiserver 1.34.4 prints them
 * (fixtures/status-table-answers.json, recorded by tools/reference/record-answers.ts): pods
 * running, initializing (read up to the first init container still initializing; a started
 * sidecar counts as ready), finished (the row's Completed condition with its reason and words),
 * gated, deleted after finishing or on a lost node; nodes whose Ready condition is not True
 * (NotReady, Unknown included); workloads, jobs, claims, volumes, autoscalers and budgets with
 * their counts.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'status-table-answers.json'));
