/**
 * RBAC objects, mutating webhook configurations and TokenRequests, as kube-apiserver 1.34.4
 * answers (fixtures/rbac-webhook-token-answers.json, recorded by
 * tools/reference/record-answers.ts): rules without verbs or mixing URLs and resources, aggregation
 * selectors, bindings' role references and subjects (a roleRef is immutable), webhooks' every
 * enumerated field, duplicate names and match conditions, and token requests' expiry, bound
 * objects and missing accounts.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'rbac-webhook-token-answers.json'), { process: true });
