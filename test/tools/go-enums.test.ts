/**
 * The enum sections tools/descriptions appends to field descriptions, read from Go sources as
 * the reference's OpenAPI generator reads them (kube-openapi's enum.go): made-up packages here,
 * one of each form the API's packages use. Checked against kube-apiserver 1.34.4's /openapi/v2:
 * its 75 described fields with a section got the very same section.
 */
import { openAPIDescription } from '../../tools/descriptions/go-doc-comments';
import { enumSectionLines, goEnums } from '../../tools/descriptions/go-enums';

const CORE = `package v1

// Protocol defines network protocols.
// +enum
type Protocol string

const (
	// ProtocolTCP is the TCP protocol.
	ProtocolTCP Protocol = "TCP"
	// ProtocolUDP is the UDP
	// protocol.
	ProtocolUDP Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// IPv4Protocol is a family, not an enum here.
const IPv4Protocol Family = "IPv4"

// Family is not tagged.
type Family string

// Policy is re-exported by another package.
// +enum
type Policy string

const (
	// PolicyNever never.
	PolicyNever Policy = "Never"
)

type Port struct {
	// The protocol.
	Protocol Protocol \`json:"protocol,omitempty" protobuf:"bytes,1,opt,name=protocol"\`
	Optional *Protocol \`json:"optional,omitempty"\`
	Many []Protocol \`json:"many,omitempty"\`
	Family Family \`json:"family"\`
	Policy *Policy \`json:"policy,omitempty"\`
}
`;

const DISCOVERY = `package v1

import (
	corev1 "example.com/api/core/v1"
)

// AddressType is the type of an address.
// +enum
type AddressType string

const (
	// AddressTypeIPv4 represents an IPv4 Address.
	AddressTypeIPv4 = AddressType(corev1.IPv4Protocol)
	// AddressTypeFQDN represents a FQDN.
	AddressTypeFQDN = AddressType("FQDN")
)

type Policy = corev1.Policy

type Slice struct {
	AddressType AddressType \`json:"addressType"\`
	Protocol *corev1.Protocol \`json:"protocol"\`
}
`;

const enums = goEnums([
  { packagePath: 'example.com/api/core/v1', source: CORE },
  { packagePath: 'example.com/api/discovery/v1', source: DISCOVERY },
]);

test('an enum type: one line per value, sorted, the constant name trimmed from its comment', () => {
  expect(enums.sections.get('example.com/api/core/v1.Protocol')).toEqual([
    ' - `"SCTP"`',
    ' - `"TCP"` is the TCP protocol.',
    ' - `"UDP"` is the UDP protocol.',
  ]);
  expect(
    openAPIDescription(['The protocol.', ...enumSectionLines(enums.sections.get('example.com/api/core/v1.Protocol')!)]),
  ).toBe(
    'The protocol.\n\nPossible enum values:\n - `"SCTP"`\n - `"TCP"` is the TCP protocol.\n - `"UDP"` is the UDP protocol.',
  );
  // A comment ending in an empty line before its markers leaves one newline more, as the reference's generator does.
  expect(
    openAPIDescription(['The protocol.', '', '+required', ...enumSectionLines([' - `"TCP"` is the TCP protocol.'])]),
  ).toBe('The protocol.\n\n\nPossible enum values:\n - `"TCP"` is the TCP protocol.');
});

test("a conversion of another package's constant takes its value", () => {
  expect(enums.sections.get('example.com/api/discovery/v1.AddressType')).toEqual([
    ' - `"FQDN"` represents a FQDN.',
    ' - `"IPv4"` represents an IPv4 Address.',
  ]);
});

test('fields of an enum type or a pointer to one, in their package or another; not slices, untagged types or re-exported enums', () => {
  expect(enums.fieldTypes.get('example.com/api/core/v1.Port')).toEqual(
    new Map([
      ['protocol', 'example.com/api/core/v1.Protocol'],
      ['optional', 'example.com/api/core/v1.Protocol'],
    ]),
  );
  expect(enums.fieldTypes.get('example.com/api/discovery/v1.Slice')).toEqual(
    new Map([
      ['addressType', 'example.com/api/discovery/v1.AddressType'],
      ['protocol', 'example.com/api/core/v1.Protocol'],
    ]),
  );
  expect(enums.sections.has('example.com/api/core/v1.Policy')).toBe(false);
  expect(enums.sections.has('example.com/api/core/v1.Family')).toBe(false);
});
