/**
 * CertificateSigningRequests through their life, as kube-apiserver 1.34.4 answers
 * (fixtures/certificate-request-answers.json, recorded by tools/reference/record-answers.ts):
 * the system:masters subject refused for the API server's client signer, the requester's
 * identity recorded whatever the body says, approval and signing permitted per signer,
 * conditions that may not be removed or combined, certificates that are no certificate or
 * change, and writes of the request itself or of its status that may not change what was
 * asked (a PUT or patch of the request keeps the stored spec and status).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'certificate-request-answers.json'));
