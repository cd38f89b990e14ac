/**
 * NetworkPolicy rules: a 1.34.4 kube-apiserver, with its default gates and with
 * StrictIPCIDRValidation=true, given the same policies, answered these causes (or stored them).
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const policies = typeOf('networking.k8s.io', 'networkpolicies');
const STRICT = { StrictIPCIDRValidation: true };
const NOT_A_SUBSET = 'must be a strict subset of `cidr`';

function policy(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'np', namespace: 'default' },
    spec: { podSelector: {}, ...spec },
  } as KubeObject;
}

/** A policy letting the block in and out, as the reference was asked: each error comes twice. */
function bothWays(ipBlock: Record<string, unknown>): KubeObject {
  return policy({ ingress: [{ from: [{ ipBlock }] }], egress: [{ to: [{ ipBlock }] }] });
}

function errorsOf(sent: KubeObject, gates: Readonly<Record<string, boolean>> = {}): readonly string[] {
  return created(policies, sent, gates).errors;
}

/** The same message at the block's place in the ingress rule, then in the egress rule. */
function twice(place: string, message: string): string[] {
  return [`spec.ingress[0].from[0].ipBlock.${place}: ${message}`, `spec.egress[0].to[0].ipBlock.${place}: ${message}`];
}

/** Both directions' errors in the reference's order: all of the ingress rule's, then the egress rule's. */
function inOrder(...pairs: string[][]): string[] {
  return [...pairs.map((pair) => pair[0]), ...pairs.map((pair) => pair[1])];
}

describe('ipBlock except: a strictly smaller part of the block, whatever the gates', () => {
  test.each([
    ['outside the block', { cidr: '10.0.0.0/8', except: ['11.0.0.0/16'] }, '11.0.0.0/16'],
    ['the block itself', { cidr: '10.0.0.0/8', except: ['10.0.0.0/8'] }, '10.0.0.0/8'],
    ['of the other family', { cidr: '10.0.0.0/8', except: ['fd00::/64'] }, 'fd00::/64'],
  ])('%s is refused', (_name, ipBlock, except) => {
    const expected = twice('except[0]', `Invalid value: ${JSON.stringify(except)}: ${NOT_A_SUBSET}`);
    expect(errorsOf(bothWays(ipBlock))).toEqual(expected);
    expect(errorsOf(bothWays(ipBlock), STRICT)).toEqual(expected);
  });

  test.each([
    ['a part of the block', { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] }],
    ['the same part twice', { cidr: '10.0.0.0/8', except: ['10.0.0.0/16', '10.0.0.0/16'] }],
    ['a part of the whole IPv4 space', { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] }],
    ['an IPv4-mapped part, compared as IPv4', { cidr: '10.0.0.0/8', except: ['::ffff:10.1.0.0/112'] }],
  ])('%s is taken', (_name, ipBlock) => {
    expect(errorsOf(bothWays(ipBlock))).toEqual([]);
  });

  test('an IPv6 block: the part outside it alone is refused', () => {
    expect(errorsOf(bothWays({ cidr: 'fd00::/8', except: ['fd00::/16', 'fe00::/16'] }))).toEqual(
      twice('except[1]', `Invalid value: "fe00::/16": ${NOT_A_SUBSET}`),
    );
  });

  test('an IPv4-mapped block is as long as its IPv6 prefix', () => {
    const sent = bothWays({ cidr: '::ffff:10.0.0.0/104', except: ['10.1.0.0/16'] });
    const notSubset = twice('except[0]', `Invalid value: "10.1.0.0/16": ${NOT_A_SUBSET}`);
    expect(errorsOf(sent)).toEqual(notSubset);
    expect(errorsOf(sent, STRICT)).toEqual(
      inOrder(
        twice('cidr', 'Invalid value: "::ffff:10.0.0.0/104": must not have an IPv4-mapped IPv6 address'),
        notSubset,
      ),
    );
  });

  test('a block that does not parse leaves its exceptions unjudged', () => {
    expect(errorsOf(bothWays({ cidr: 'bad', except: ['bad2'] }))).toEqual(
      twice('cidr', 'Invalid value: "bad": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'),
    );
  });

  test('an exception that does not parse is reported as such alone', () => {
    const sent = bothWays({ cidr: '10.0.0.0/8', except: ['10.1.0.0/7', 'bad3'] });
    const notParsed = twice(
      'except[1]',
      'Invalid value: "bad3": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    );
    const notSubset = twice('except[0]', `Invalid value: "10.1.0.0/7": ${NOT_A_SUBSET}`);
    expect(errorsOf(sent)).toEqual(inOrder(notSubset, notParsed));
    expect(errorsOf(sent, STRICT)).toEqual(
      inOrder(
        twice('except[0]', 'Invalid value: "10.1.0.0/7": must not have bits set beyond the prefix length'),
        notSubset,
        notParsed,
      ),
    );
  });

  test('a block the strict rules refuse still judges its exceptions', () => {
    const sent = bothWays({ cidr: '10.0.0.1/8', except: ['10.0.0.1/16'] });
    expect(errorsOf(sent)).toEqual([]);
    expect(errorsOf(sent, STRICT)).toEqual(
      inOrder(
        twice('cidr', 'Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length'),
        twice('except[0]', 'Invalid value: "10.0.0.1/16": must not have bits set beyond the prefix length'),
      ),
    );
  });
});

describe('policyTypes', () => {
  test('more than two are refused, listed', () => {
    expect(errorsOf(policy({ policyTypes: ['Ingress', 'Egress', 'Ingress'] }))).toEqual([
      'spec.policyTypes: Invalid value: ["Ingress","Egress","Ingress"]: may not specify more than two policyTypes',
    ]);
  });

  test('each must be Ingress or Egress, spelt so', () => {
    expect(errorsOf(policy({ policyTypes: ['Ingress', 'Sideways'] }))).toEqual([
      'spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    ]);
    expect(errorsOf(policy({ policyTypes: ['ingress'] }))).toEqual([
      'spec.policyTypes[0]: Unsupported value: "ingress": supported values: "Ingress", "Egress"',
    ]);
  });

  test('one named twice is taken', () => {
    expect(errorsOf(policy({ policyTypes: ['Ingress', 'Ingress'] }))).toEqual([]);
  });
});

describe('label values in selectors', () => {
  const LABEL_VALUE =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const bad = (key: string, value: string) => ({ matchExpressions: [{ key, operator: 'In', values: [value] }] });
  const valueError = (place: string, value: string) =>
    `${place}.matchExpressions[0].values[0]: Invalid value: "${value}": ${LABEL_VALUE}`;
  const egressTo = (selector: Record<string, unknown>) => (next: KubeObject) =>
    ((next.spec as Record<string, unknown>).egress = [{ to: [{ namespaceSelector: selector }] }]);

  test('a new policy: the labels, then each expression value, in every selector', () => {
    expect(
      errorsOf(
        policy({
          podSelector: { matchLabels: { b: '-x-' }, ...bad('a', '-bad-') },
          ingress: [{ from: [{ podSelector: bad('a', '-p-'), namespaceSelector: bad('a', '-n-') }] }],
        }),
      ),
    ).toEqual([
      `spec.podSelector.matchLabels: Invalid value: "-x-": ${LABEL_VALUE}`,
      valueError('spec.podSelector', '-bad-'),
      valueError('spec.ingress[0].from[0].podSelector', '-p-'),
      valueError('spec.ingress[0].from[0].namespaceSelector', '-n-'),
    ]);
  });

  // Stored by an older server (capstan took such values until now), never created through validation.
  const legacy = policy({ podSelector: bad('a', '-bad-'), ingress: [{ from: [{ podSelector: bad('a', '-bad-') }] }] });

  test("a stored podSelector with invalid values spares every selector's values on update", () => {
    expect(updated(policies, legacy, (next) => (next.metadata.labels = { x: 'y' }), {}).errors).toEqual([]);
    expect(updated(policies, legacy, egressTo(bad('c', '-new-')), {}).errors).toEqual([]);
  });

  // An update checks the spec twice, before the metadata's update and after it.
  test('but not the labels of matchLabels', () => {
    const error = `spec.egress[0].to[0].namespaceSelector.matchLabels: Invalid value: "-new-": ${LABEL_VALUE}`;
    expect(updated(policies, legacy, egressTo({ matchLabels: { c: '-new-' } }), {}).errors).toEqual([error, error]);
  });

  test('invalid values stored in a peer alone are refused on update', () => {
    const peerOnly = policy({ ingress: [{ from: [{ podSelector: bad('a', '-bad-') }] }] });
    const error = valueError('spec.ingress[0].from[0].podSelector', '-bad-');
    expect(updated(policies, peerOnly, (next) => (next.metadata.labels = { x: 'y' }), {}).errors).toEqual([
      error,
      error,
    ]);
  });
});
