/**
 * APIServices as kube-apiserver 1.34.4 answers them (fixtures/apiservice-answers.json, recorded
 * by tools/reference/record-answers.ts): names that must be `<version>.<group>`, groups,
 * versions, priorities, services and their ports, CA bundles beside insecureSkipTLSVerify,
 * status conditions, the fixed group; a local APIService (no service) is Available from the
 * answer to its create on, as the reference's strategy marks it.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'apiservice-answers.json'));
