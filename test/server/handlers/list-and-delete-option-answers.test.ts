/**
 * List and delete options, as kube-apiserver 1.34.4 answers (fixtures/list-and-delete-option-
 * answers.json, recorded by tools/reference/record-answers.ts): label and field selectors the
 * parsers refuse, limits, continue tokens that are no tokens (the undecodable byte named as Go
 * names it), resourceVersionMatch without or with a bogus value, deletecollection with a bad
 * selector, policy, dry run or DeleteOptions body.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'list-and-delete-option-answers.json'));
