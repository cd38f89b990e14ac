/**
 * Events through both APIs, as kube-apiserver 1.34.4 answers (fixtures/event-answers.json,
 * recorded by tools/reference/record-answers.ts): core v1 Events (the involved object's namespace,
 * series and eventTime needing the reporting fields) and events.k8s.io v1 Events (required
 * eventTime, type, note and controller rules, fields immutable on update), every refusal naming
 * the core Event an events.k8s.io Event is stored as, an update's too.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'event-answers.json'));
