/**
 * Services' load balancer class and policies, as kube-apiserver 1.34.4 answers (fixtures/service-
 * class-and-policy-answers.json, recorded by tools/reference/record-answers.ts): a class that may
 * not change between two load balancers (judged as an update and again as a create), nor be set
 * on another type; dual-stack and IPv6 asks of a single-stack cluster; session affinity, internal
 * and external traffic policies, health check ports, ExternalNames, port names and node port
 * ranges; and a load balancer turned ExternalName, whose stored internalTrafficPolicy every read
 * hides.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'service-class-and-policy-answers.json'));
