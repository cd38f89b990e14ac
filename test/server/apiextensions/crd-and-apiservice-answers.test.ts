/**
 * CustomResourceDefinitions and APIServices, as kube-apiserver 1.34.4 answers
 * (fixtures/crd-and-apiservice-answers.json, recorded by tools/reference/record-answers.ts):
 * - schemas refused for their types, defaults, rules, list and map markers, and the members a
 *   structural schema cannot hold (whose reading error stands in for the structural problems);
 * - versions refused for their storage flags, names or duplicates, printed as the reference
 *   prints its internal versions (Go field names; what every version shares moved out);
 * - status writes, judged on the accepted names alone: storedVersions emptied gets the storage
 *   version back, and may name a version the spec no longer has;
 * - both kinds written as Go writes their types: omitempty zeros left out, nil lists without
 *   omitempty (a new CRD's conditions) written null.
 * The first CRD is created first so that its conditions are settled when its status is written.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'crd-and-apiservice-answers.json'));
