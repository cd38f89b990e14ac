/**
 * Objects kube-apiserver 1.34.4 refuses, refused here in its words (fixtures/validation-answers.json,
 * recorded by tools/reference/record-answers.ts), and a few near misses it takes: Services
 * (ExternalName names and addresses, one port twice, headless node ports, session affinity,
 * load balancer classes, app protocols, traffic policies, topology annotations), host ports
 * two containers share, Ingress hosts, paths, TLS and classes, autoscaler target groups, a
 * disruption budget with both bounds, a binding without its role, and Secrets by type.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'validation-answers.json'));
