/**
 * ValidatingAdmissionPolicies and their bindings as kube-apiserver 1.34.4 answers them
 * (fixtures/admission-policy-answers.json, recorded by tools/reference/record-answers.ts):
 * validations and their messages, reasons, match constraints, failure policy, paramKind and
 * `params`, audit annotations, variables (a policy without any declares no `variables`: naming
 * them is an undeclared reference), match conditions, cost; bindings' actions, paramRefs and
 * match resources.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'admission-policy-answers.json'));
