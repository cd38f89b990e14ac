/**
 * Strategic merge, JSON and merge patches of a Deployment, as kube-apiserver 1.34.4 answers
 * (fixtures/patch-directive-answers.json, recorded by tools/reference/record-answers.ts): the
 * `$patch` delete and replace directives, `$deleteFromPrimitiveList`, `$setElementOrder`,
 * `$retainKeys` (and one that is no list), containers and env entries added by merge key; JSON
 * patch tests that fail, unknown operations, missing paths and values, indexes out of range,
 * moves and a patch that is no list; merge patches nulling the spec or replacing a list.
 * An item whose merge key is null is a new item, placed before the server's ones (Go reads the
 * null as it reads a missing key). Left out: refusals the reference answers with a bare 500 (an
 * unknown directive, an item without its merge key: capstan's 400).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'patch-directive-answers.json'));
