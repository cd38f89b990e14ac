/**
 * EndpointSlices, Endpoints and Ingresses as kube-apiserver 1.34.4 answers them
 * (fixtures/endpoint-and-ingress-answers.json, recorded by tools/reference/record-answers.ts):
 * address types (FQDN names checked as fully qualified domains), addresses of each family and
 * the ranges an endpoint may not be in, the bounds on endpoints and addresses, hostnames, node
 * names, hints, ports; the deprecatedTopology the v1 API drops; Endpoints subsets; Ingress
 * backends, hosts, paths and TLS. Loopback addresses have a fixture of their own
 * (endpoint-loopback-answers.test.ts).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'endpoint-and-ingress-answers.json'));
