/**
 * Endpoints and EndpointSlices with loopback addresses, as kube-apiserver 1.34.4 answers them
 * (fixtures/endpoint-loopback-answers.json, recorded by tools/reference/record-answers.ts):
 * refused in every namespace, ready or not, IPv4 or IPv6, written sloppily or IPv4-mapped, on
 * create and on update, and for an object named `kubernetes` outside `default`. The `kubernetes`
 * Service's own objects in `default`, which capstan's endpoint reconciler writes with a loopback
 * advertise address, are the one exception (test/server/controllers/endpoint-leases.test.ts).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'endpoint-loopback-answers.json'));
