/**
 * Strategic merge patches of lists, as kube-apiserver 1.34.4 merges them
 * (fixtures/merge-key-answers.json, recorded by tools/reference/record-answers.ts): by each
 * list's merge key (taints and tolerations have none and are replaced, a `$patch: delete` item of
 * a taint list kept as an item; Service and container ports keyed by number alone; env, mounts,
 * volumes, host aliases, spread constraints, init containers, pull secrets) and finalizers, a
 * set. An item without its merge key is left out: the reference's 500, capstan's 400
 * (patch-directive-answers.test.ts).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'merge-key-answers.json'));
