/**
 * The addresses of pod, Service and Ingress statuses: what a 1.34.4 kube-apiserver answered to
 * the same status merge patches, started with its default gates and with
 * StrictIPCIDRValidation=true. Each expected answer is its own: `ok` or the causes of its 422.
 * Objects written with the gate off and written again after a restart with it on, over the same
 * etcd, gave the answers of the cases that keep a stored address and that change a Service's type.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const pods = typeOf('', 'pods');
const services = typeOf('', 'services');
const ingresses = typeOf('networking.k8s.io', 'ingresses');
const STRICT = { StrictIPCIDRValidation: true };

function object(apiVersion: string, kind: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion, kind, metadata: { name: 'x', namespace: 'default' }, spec } as KubeObject;
}

const POD = object('v1', 'Pod', { containers: [{ name: 'c', image: 'i' }] });
const LOAD_BALANCER = object('v1', 'Service', { type: 'LoadBalancer', ports: [{ port: 80 }] });
const CLUSTER_IP = object('v1', 'Service', { type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ port: 80 }] });
const INGRESS = object('networking.k8s.io/v1', 'Ingress', {
  defaultBackend: { service: { name: 'x', port: { number: 80 } } },
});

/** The stored object after a create, then a status write giving these fields under `gates`. */
function statusWrite(
  sent: KubeObject,
  status: Record<string, unknown>,
  gates: Readonly<Record<string, boolean>>,
  stored = created(typeOfObject(sent), sent, gates).object,
) {
  return updated(typeOfObject(sent), stored, (next) => Object.assign((next.status ??= {}), status), gates, 'status');
}

function typeOfObject(sent: KubeObject) {
  if (sent.kind === 'Pod') return pods;
  return sent.kind === 'Service' ? services : ingresses;
}

function answer(sent: KubeObject, status: Record<string, unknown>, gates: Readonly<Record<string, boolean>>) {
  const written = statusWrite(sent, status, gates);
  return written.errors.length === 0 ? 'ok' : written.errors;
}

const LEADING_ZEROS = 'must not have leading 0s';
const NOT_AN_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const MAPPED = 'must not be an IPv4-mapped IPv6 address';
const ONE_PER_FAMILY = 'may specify no more than one IP for each IP family';
const NOT_A_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** [case, sent, status, answer with the default gates, answer with StrictIPCIDRValidation (absent: the same)] */
type Case = [string, KubeObject, Record<string, unknown>, 'ok' | string[], ('ok' | string[])?];

const CASES: Case[] = [
  [
    'two pod IPs of one family',
    POD,
    { podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] },
    [`status.podIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"10.0.0.2"}]: ${ONE_PER_FAMILY}`],
  ],
  [
    'a pod IP with leading zeros',
    POD,
    { podIPs: [{ ip: '010.0.0.1' }] },
    'ok',
    [`status.podIPs[0]: Invalid value: "010.0.0.1": ${LEADING_ZEROS}`],
  ],
  ['a pod IP that is none', POD, { podIPs: [{ ip: 'bad' }] }, [`status.podIPs[0]: Invalid value: "bad": ${NOT_AN_IP}`]],
  [
    'three pod IPs',
    POD,
    { podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }, { ip: 'fd00::2' }] },
    [`status.podIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"fd00::1"},{"IP":"fd00::2"}]: ${ONE_PER_FAMILY}`],
  ],
  [
    'a pod IPv4-mapped address',
    POD,
    { podIP: '::ffff:1.2.3.4' },
    'ok',
    [`status.podIPs[0]: Invalid value: "::ffff:1.2.3.4": ${MAPPED}`],
  ],
  [
    'a mapped address is IPv4 beside another IPv4 one',
    POD,
    { podIPs: [{ ip: '10.0.0.1' }, { ip: '::ffff:1.2.3.4' }] },
    [`status.podIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"::ffff:1.2.3.4"}]: ${ONE_PER_FAMILY}`],
    [
      `status.podIPs[1]: Invalid value: "::ffff:1.2.3.4": ${MAPPED}`,
      `status.podIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"::ffff:1.2.3.4"}]: ${ONE_PER_FAMILY}`,
    ],
  ],
  [
    'host IPs not starting with hostIP',
    POD,
    { hostIP: '10.0.0.1', hostIPs: [{ ip: '10.0.0.2' }] },
    ['status.hostIPs[0].ip: Invalid value: "10.0.0.2": must be equal to `hostIP`'],
  ],
  [
    'host IPs without hostIP',
    POD,
    { hostIPs: [{ ip: '10.0.0.1' }] },
    ['status.hostIPs[0].ip: Invalid value: "10.0.0.1": must be equal to `hostIP`'],
  ],
  [
    'two host IPs of one family',
    POD,
    { hostIP: '10.0.0.1', hostIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.3' }] },
    [`status.hostIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"10.0.0.3"}]: ${ONE_PER_FAMILY}`],
  ],
  [
    'a host IP with leading zeros',
    POD,
    { hostIP: '010.0.0.1', hostIPs: [{ ip: '010.0.0.1' }] },
    'ok',
    [`status.hostIPs[0]: Invalid value: "010.0.0.1": ${LEADING_ZEROS}`],
  ],
  [
    'host IPs that are none: the family check cannot run',
    POD,
    { hostIP: 'bad', hostIPs: [{ ip: 'bad' }, { ip: 'bad' }] },
    [
      `status.hostIPs[0]: Invalid value: "bad": ${NOT_AN_IP}`,
      `status.hostIPs[1]: Invalid value: "bad": ${NOT_AN_IP}`,
      'status.hostIPs: Internal error: failed to check for dual stack with error:invalid IP[0]: bad',
      `status.hostIPs: Invalid value: [{"IP":"bad"},{"IP":"bad"}]: ${ONE_PER_FAMILY}`,
    ],
  ],
  [
    'a dual-stack pod',
    POD,
    {
      podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }],
      hostIP: '10.0.0.1',
      hostIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }],
    },
    'ok',
  ],
  [
    'a Service ingress IP with leading zeros',
    LOAD_BALANCER,
    { loadBalancer: { ingress: [{ ip: '010.1.2.3' }] } },
    'ok',
    [`status.loadBalancer.ingress[0].ip: Invalid value: "010.1.2.3": ${LEADING_ZEROS}`],
  ],
  [
    'a Service ingress IP that is none',
    LOAD_BALANCER,
    { loadBalancer: { ingress: [{ ip: 'bad' }] } },
    [`status.loadBalancer.ingress[0].ip: Invalid value: "bad": ${NOT_AN_IP}`],
  ],
  [
    'a Service ingress IPv4-mapped address',
    LOAD_BALANCER,
    { loadBalancer: { ingress: [{ ip: '::ffff:1.2.3.4' }] } },
    'ok',
    [`status.loadBalancer.ingress[0].ip: Invalid value: "::ffff:1.2.3.4": ${MAPPED}`],
  ],
  [
    'an unknown ipMode',
    LOAD_BALANCER,
    { loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'Bad' }] } },
    ['status.loadBalancer.ingress[0].ipMode: Unsupported value: "Bad": supported values: "Proxy", "VIP"'],
  ],
  [
    'an ipMode without ip',
    LOAD_BALANCER,
    { loadBalancer: { ingress: [{ hostname: 'a.example.com', ipMode: 'VIP' }] } },
    ['status.loadBalancer.ingress[0].ipMode: Forbidden: may not be specified when `ip` is not set'],
  ],
  [
    'a Service ingress hostname that is an IP',
    LOAD_BALANCER,
    { loadBalancer: { ingress: [{ hostname: '1.2.3.4' }] } },
    ['status.loadBalancer.ingress[0].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address'],
  ],
  [
    'a Service ingress hostname that is no DNS name',
    LOAD_BALANCER,
    { loadBalancer: { ingress: [{ hostname: 'Bad_Name' }] } },
    [`status.loadBalancer.ingress[0].hostname: Invalid value: "Bad_Name": ${NOT_A_SUBDOMAIN}`],
  ],
  [
    'a Service proxied ingress point',
    LOAD_BALANCER,
    { loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'Proxy', hostname: 'a.b' }] } },
    'ok',
  ],
  [
    'a load balancer status on a ClusterIP Service',
    CLUSTER_IP,
    { loadBalancer: { ingress: [{ ip: '010.1.2.3' }] } },
    ["status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"],
  ],
  [
    'an Ingress ingress IP with leading zeros',
    INGRESS,
    { loadBalancer: { ingress: [{ ip: '010.1.2.3' }] } },
    'ok',
    [`status.loadBalancer.ingress[0].ip: Invalid value: "010.1.2.3": ${LEADING_ZEROS}`],
  ],
  [
    'an Ingress ingress IP that is none',
    INGRESS,
    { loadBalancer: { ingress: [{ ip: 'bad' }] } },
    [`status.loadBalancer.ingress[0].ip: Invalid value: "bad": ${NOT_AN_IP}`],
  ],
  [
    'an Ingress ingress IPv4-mapped address',
    INGRESS,
    { loadBalancer: { ingress: [{ ip: '::ffff:1.2.3.4' }] } },
    'ok',
    [`status.loadBalancer.ingress[0].ip: Invalid value: "::ffff:1.2.3.4": ${MAPPED}`],
  ],
  [
    'an Ingress ingress hostname that is an IP',
    INGRESS,
    { loadBalancer: { ingress: [{ hostname: '1.2.3.4' }] } },
    ['status.loadBalancer.ingress[0].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address'],
  ],
  [
    'an Ingress ingress hostname that is no DNS name',
    INGRESS,
    { loadBalancer: { ingress: [{ hostname: 'Bad_Name' }] } },
    [`status.loadBalancer.ingress[0].hostname: Invalid value: "Bad_Name": ${NOT_A_SUBDOMAIN}`],
  ],
  ['an Ingress ingress point', INGRESS, { loadBalancer: { ingress: [{ ip: '1.2.3.4', hostname: 'a.b' }] } }, 'ok'],
];

describe.each([
  ['default gates', {}],
  ['StrictIPCIDRValidation on', STRICT],
] as const)('status addresses, %s', (label, gates) => {
  const rows = CASES.map(([name, sent, status, byDefault, strictly]) => ({ name, sent, status, byDefault, strictly }));
  test.each(rows)('$name', ({ sent, status, byDefault, strictly }) => {
    const expected = label === 'default gates' ? byDefault : (strictly ?? byDefault);
    expect(answer(sent, status, gates)).toEqual(expected);
  });
});

describe('what a status write stores', () => {
  test('podIP wins over a podIPs list that disagrees, as the reference converts it', () => {
    const written = statusWrite(POD, { podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.9' }] }, {});
    expect(written.errors).toEqual([]);
    expect(written.object.status).toMatchObject({ podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }] });
  });

  test('a Service ingress point with an ip is a VIP unless it says', () => {
    const written = statusWrite(
      LOAD_BALANCER,
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'a.b' }] } },
      {},
    );
    expect(written.errors).toEqual([]);
    expect(written.object.status).toEqual({
      loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'VIP' }, { hostname: 'a.b' }] },
    });
  });

  test('with StrictIPCIDRValidation on, an address the stored status has is kept', () => {
    const pod = statusWrite(
      POD,
      { podIPs: [{ ip: '010.0.0.1' }], hostIP: '010.0.0.1', hostIPs: [{ ip: '010.0.0.1' }] },
      {},
    );
    expect(pod.errors).toEqual([]);
    expect(statusWrite(POD, { phase: 'Running' }, STRICT, pod.object).errors).toEqual([]);
    const service = statusWrite(LOAD_BALANCER, { loadBalancer: { ingress: [{ ip: '010.1.2.3' }] } }, {});
    const more = { loadBalancer: { ingress: [{ ip: '010.1.2.3' }, { ip: '010.1.2.4' }] } };
    expect(statusWrite(LOAD_BALANCER, more, STRICT, service.object).errors).toEqual([
      `status.loadBalancer.ingress[1].ip: Invalid value: "010.1.2.4": ${LEADING_ZEROS}`,
    ]);
    const ingress = statusWrite(INGRESS, { loadBalancer: { ingress: [{ ip: '010.1.2.3' }] } }, {});
    expect(statusWrite(INGRESS, more, STRICT, ingress.object).errors).toEqual([
      `status.loadBalancer.ingress[1].ip: Invalid value: "010.1.2.4": ${LEADING_ZEROS}`,
    ]);
  });

  test('a Service leaving LoadBalancer loses its load balancer status rather than being refused', () => {
    const service = statusWrite(LOAD_BALANCER, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } }, {});
    const changed = updated(services, service.object, (next) => Object.assign(next.spec!, { type: 'ClusterIP' }), {});
    expect(changed.errors).toEqual([]);
    expect(changed.object.status).toEqual({ loadBalancer: {} });
  });
});
