/**
 * A pod's containers, as kube-apiserver 1.34.4 answers (fixtures/pod-container-answers.json,
 * recorded by tools/reference/record-answers.ts): probes (handlers, a liveness or startup probe's
 * success threshold of 1, a readiness probe without a grace period, zeros defaulted as Go
 * defaults them), lifecycle hooks, volume mounts, host ports, spread constraints, security
 * contexts, environment sources, DNS config, host aliases, overhead and init containers' restart
 * policies.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'pod-container-answers.json'));
