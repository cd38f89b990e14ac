/**
 * ReplicationControllers, PodTemplates and Leases, as kube-apiserver 1.34.4 answers
 * (fixtures/controller-template-lease-answers.json, recorded by tools/reference/record-answers.ts):
 * a controller's selector, template and bounds, its scale and status; a PodTemplate sent without
 * `template`, which Go decodes as the zero template, defaults and refuses for its missing
 * containers; a Lease's bounds, strategy and preferred holder.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'controller-template-lease-answers.json'));
