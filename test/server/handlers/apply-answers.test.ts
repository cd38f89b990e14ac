/**
 * Server-side apply as kube-apiserver 1.34.4 answers it (fixtures/apply-answers.json, recorded by
 * tools/reference/record-answers.ts): conflicts and `force`, field managers and options refused,
 * configurations of another object, kind or version, YAML refused, repeated keys judged only
 * after the apply succeeded (a conflict is answered first), a null over a map or list that holds
 * something merging nothing (the live members stay, the applier owns the field), a null map value
 * read as Go reads it (`labels: {a: null}` holds `a: ""`), a map a removal emptied still owned by
 * whoever owns it, and an apply that changes nothing stamping no time on its manager's entry
 * (which then sorts first). Two kinds of step are left out: a conflict with several managers,
 * whose causes the reference lists in Go's map order, and a configuration the type cannot hold,
 * which the reference answers with a bare 500 and capstan with a 400.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'apply-answers.json'));
