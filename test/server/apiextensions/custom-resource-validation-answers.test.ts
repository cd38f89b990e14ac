/**
 * A custom resource's schema validation, as kube-apiserver 1.34.4 answers (fixtures/custom-
 * resource-validation-answers.json, recorded by tools/reference/record-answers.ts): required
 * fields, bounds, enums, patterns, formats, list and map types, int-or-string, unknown fields
 * under Strict and Warn, CEL rules with messages, message expressions, reasons, field paths and
 * transition rules on update, a status schema through the status subresource, and a spec that is
 * null or no object.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'custom-resource-validation-answers.json'));
