/**
 * FlowSchemas and PriorityLevelConfigurations as kube-apiserver 1.34.4 answers them
 * (fixtures/flowcontrol-answers.json, recorded by tools/reference/record-answers.ts): matching
 * precedence and distinguisher, subjects of each kind, resource and non-resource rules with
 * their wildcards; priority level types, shares, lendable and borrowing percents, queuing and its
 * defaults (v1 and v1beta3), and the mandatory levels and schemas that may not change.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'flowcontrol-answers.json'));
