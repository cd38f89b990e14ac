/**
 * CertificateSigningRequests, Nodes, Namespaces, ServiceAccounts, LimitRanges and
 * ResourceQuotas as kube-apiserver 1.34.4 judges them (fixtures/node-and-certificate-answers.json,
 * recorded by tools/reference/record-answers.ts, all dry runs). A CSR's signer is a domain and
 * path, not the legacy one, its duration at least ten minutes, a missing request is Go's nil
 * bytes; a Node's duplicate taint is printed as the internal struct.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'node-and-certificate-answers.json'));
