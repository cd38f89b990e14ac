/**
 * A CRD whose versions differ in schema, scale paths and selectable fields, beside a
 * cluster-scoped one, as kube-apiserver 1.34.4 answers
 * (fixtures/version-scale-selector-answers.json, recorded by tools/reference/record-answers.ts):
 * a scale write validated by the schema of the version it is sent in, each version's selectable
 * fields and the words for a label it lacks (`field label not supported`, with or without
 * selectable fields, metadata.namespace refused for a cluster-scoped kind), and a
 * ValidatingAdmissionPolicy matching one version seeing writes of the other converted to it.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'version-scale-selector-answers.json'));
