/**
 * More tables as kube-apiserver 1.34.4 prints them (fixtures/more-table-answers.json, recorded by
 * tools/reference/record-answers.ts): services of each type (ports, node ports, load balancer
 * addresses, external IPs, pending), workloads' selectors and counts, jobs indexed, suspended
 * and failing, endpoints and slices beyond three addresses, claims and volumes by phase, a
 * namespace, and autoscaler metrics of every source.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'more-table-answers.json'));
