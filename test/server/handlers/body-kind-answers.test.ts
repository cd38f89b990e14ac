/**
 * Bodies of another kind or version, or no object at all, as kube-apiserver 1.34.4 answers
 * (fixtures/body-kind-answers.json, recorded by tools/reference/record-answers.ts): for the
 * TokenRequest subresource, the reviews and plain resources, a kind the scheme does not know, one
 * it knows as another kind (the meta `Status` in v1), a version it registers but does not serve
 * (batch/v1beta1, apps/v1beta2, extensions/v1beta1: "does not match the expected API version"),
 * an unknown group, a JSON list where the object should be, and a spec of the wrong JSON type.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'body-kind-answers.json'), { process: true });
