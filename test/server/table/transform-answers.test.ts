/**
 * Tables and partial object metadata as kube-apiserver 1.34.4 answers them
 * (fixtures/transform-answers.json, recorded by tools/reference/record-answers.ts): watches as
 * tables and metadata (a watch-list's bookmark row prints its nameless object's name as ""),
 * events.k8s.io selected by `regarding.name`, table versions and media types refused or fallen
 * back from, and the 406 for metadata of the wrong shape naming the reference's internal type
 * (`*core.ConfigMap`, `*apps.Deployment`, `*core.Event` for events.k8s.io).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'transform-answers.json'));
