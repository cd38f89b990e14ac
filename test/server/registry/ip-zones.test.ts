/**
 * An IPv6 address with a zone (`fe80::1%eth0`) is no address to Go's parsers, whatever Node's
 * isIP says: kube-apiserver 1.34.4 refused both writes below with these causes (422), where
 * capstan took the CIDR and failed on the address with a 500.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

const cases: [string, KubeObject, string][] = [
  [
    'a Service external IP',
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'z', namespace: 'default' },
      spec: { ports: [{ port: 80 }], externalIPs: ['fe80::1%eth0'] },
    } as KubeObject,
    'spec.externalIPs[0]: Invalid value: "fe80::1%eth0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
  ],
  [
    'a NetworkPolicy ipBlock',
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'z', namespace: 'default' },
      spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: 'fe80::%eth0/64' } }] }] },
    } as KubeObject,
    'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "fe80::%eth0/64": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ],
];

test.each(cases)('%s with a zone is refused', (_name, sent, error) => {
  const type = sent.kind === 'Service' ? typeOf('', 'services') : typeOf('networking.k8s.io', 'networkpolicies');
  expect(created(type, sent, {}).errors).toEqual([error]);
});
