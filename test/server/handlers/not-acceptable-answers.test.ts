/**
 * The 406s of resource endpoints as kube-apiserver 1.34.4 words them
 * (fixtures/not-acceptable-answers.json, recorded by tools/reference/record-answers.ts): a
 * custom resource is refused protobuf, yet every refusal of its handler names protobuf among
 * the forms it accepts; a watch is agreed on in two steps, the object's form (refused naming
 * every form: a bad transform, text, YAML asked to stream) and then that form's stream (YAML,
 * refused naming the streams).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'not-acceptable-answers.json'));
