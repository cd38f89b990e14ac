/**
 * HorizontalPodAutoscalers (v2 and v1, each read in the other), PodDisruptionBudgets and
 * PriorityClasses as kube-apiserver 1.34.4 answers them
 * (fixtures/autoscaling-disruption-priority-answers.json, recorded by
 * tools/reference/record-answers.ts): scale targets, replica bounds, every metric source and
 * target, scaling behaviour; budgets' amounts, selectors and eviction policy; priority values,
 * the system prefix, preemption, one global default. An unknown metric type is among the causes
 * twice, as the reference reports it, and once in the message.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'autoscaling-disruption-priority-answers.json'));
