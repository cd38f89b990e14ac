/**
 * Services as kube-apiserver 1.34.4 answers them (fixtures/service-answers.json, recorded by
 * tools/reference/record-answers.ts): ports (names, duplicates, target ports, protocols, app
 * protocols), node ports and their range, types, load balancer classes and source ranges,
 * traffic policies, session affinity, ExternalName, external and cluster IPs, IP families and
 * policies, traffic distribution; a type change and a cluster IP patch. A created Service's
 * allocated IPs and ports differ between any two servers: those steps compare their warnings.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'service-answers.json'));
