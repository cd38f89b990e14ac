/**
 * Patches that change what identifies the object, as kube-apiserver 1.34.4 answers them
 * (fixtures/patched-type-meta.json, recorded by tools/reference/record-answers.ts): JSON, merge
 * and strategic patches of apiVersion and kind (to another version, null, a number, removed),
 * name, namespace, uid, a stale resourceVersion, and metadata replaced by null or a string.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'patched-type-meta.json'));
