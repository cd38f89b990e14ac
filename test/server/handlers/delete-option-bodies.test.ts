/**
 * DeleteOptions bodies as kube-apiserver 1.34.4 reads them (fixtures/delete-option-bodies.json,
 * recorded by tools/reference/record-answers.ts): by their Content-Type among its meta codecs'
 * types (JSON, YAML, protobuf; none: JSON), any other type its 415; YAML options honoured
 * (dryRun, preconditions); a `null` body, or YAML of comments alone, no options at all. Left
 * out: a body the reference cannot decode after its type is agreed (a mistyped field, another
 * kind, a list), which it answers 500 and capstan 400.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'delete-option-bodies.json'));
