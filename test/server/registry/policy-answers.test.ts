/**
 * Access and admission policy objects as kube-apiserver 1.34.4 judges them
 * (fixtures/policy-answers.json, recorded by tools/reference/record-answers.ts, all dry runs):
 * webhook configurations (URLs, services, names, rules, policies, match conditions, review
 * versions), admission policies and bindings, flow control, and RBAC rules and subjects — a rule
 * is either non-resource URLs alone or groups with resources, a subject is checked by its kind.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'policy-answers.json'));
