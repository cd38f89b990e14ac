/**
 * The 406s and 415s of resource endpoints as kube-apiserver 1.34.4 words them
 * (fixtures/media-type-refusals.json, recorded by tools/reference/record-answers.ts): a custom
 * resource is refused protobuf, yet every refusal of its handler names protobuf among the forms
 * it accepts, for answers and for bodies alike; a watch is agreed on in two steps, the object's
 * form (refused naming every form: a bad transform, text, YAML asked to stream) and then that
 * form's stream (YAML, refused naming the streams). (A protobuf body to a custom resource, which
 * the reference answers by dropping the connection, is capstan's 415.)
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'media-type-refusals.json'));
