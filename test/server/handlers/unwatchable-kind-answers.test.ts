/**
 * Kinds that cannot be watched, as kube-apiserver 1.34.4 answers (fixtures/unwatchable-kind-answers.json,
 * recorded by tools/reference/record-answers.ts): `?watch=true` on componentstatuses is its list
 * route's 405 naming the kind, its `/watch/` path is no route at all, its selectors are the
 * generic metadata ones; reviews and bindings have no list route to watch on.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'unwatchable-kind-answers.json'), { process: true });
