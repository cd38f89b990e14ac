/**
 * Tables (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) of one object of each of
 * about fifty kinds, listed and read alone, as kube-apiserver 1.34.4 prints them
 * (fixtures/table-answers.json, recorded by tools/reference/record-answers.ts; elapsed-time cells
 * masked). A row without its object still has `object: null`; an Event's count is a number (a
 * series' count, 1 when unset); an autoscaler's Pods metric prints `<current>/<target>`; a
 * binding's service accounts print `namespace/name`; the columns' descriptions are the reference's.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'table-answers.json'));
