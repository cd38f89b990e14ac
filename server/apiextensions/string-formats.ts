/**
 * The string formats a CRD schema may name and custom resources are checked against, as the
 * reference's list for 1.34 (others are ignored, as the reference strips them). A format name
 * is compared without dashes (`date-time` is `datetime`), as the reference normalizes it.
 */
import { isIP, isIPv4, isIPv6 } from 'node:net';
import { isDNS1123Label } from '../validation/names';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const MAC =
  /^([0-9a-f]{2}[:-]){5}([0-9a-f]{2})$|^([0-9a-f]{2}[:-]){7}([0-9a-f]{2})$|^([0-9a-f]{2}[:-]){19}([0-9a-f]{2})$|^([0-9a-f]{4}\.){2}([0-9a-f]{4})$/i;
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const EMAIL = /^[^\s@<>()]+@[^\s@<>()]+$/;
const BSON_OBJECT_ID = /^[0-9a-f]{24}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
// The Greek mu is written as an escape: one character above U+00FF anywhere in the bundle makes
// V8 keep the whole bundle's source as UTF-16, twice its size (test/package/bundle-source.test.ts).
const DURATION =
  /^(?:[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|\u03bcs|ms|s|m|h))+$|^\d+\s*(ns|us|µs|ms|s|m|h|d|w|nanos?|nanoseconds?|micros?|microseconds?|millis?|milliseconds?|seconds?|sec|minutes?|min|hours?|hrs?|days?|weeks?)$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_COLOR = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const ISBN10 = /^(?:[0-9]{9}X|[0-9]{10})$/;
const ISBN13 = /^(?:[0-9]{13})$/;
const K8S_LONG_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function validDate(text: string): boolean {
  const match = DATE.exec(text);
  if (match === null) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function validCIDR(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const version = isIP(address);
  return version !== 0 && Number(bits) <= (version === 4 ? 32 : 128);
}

/** Go's net/url.ParseRequestURI accepts absolute URLs and absolute paths. */
function validURI(text: string): boolean {
  if (text.startsWith('/')) return true;
  try {
    return new URL(text).protocol !== '';
  } catch {
    return false;
  }
}

const CHECKS: Readonly<Record<string, (text: string) => boolean>> = {
  bsonobjectid: (text) => BSON_OBJECT_ID.test(text),
  uri: validURI,
  email: (text) => EMAIL.test(text),
  hostname: (text) => text.length <= 255 && HOSTNAME.test(text),
  ipv4: (text) => isIPv4(text),
  ipv6: (text) => isIPv6(text),
  cidr: validCIDR,
  mac: (text) => MAC.test(text),
  uuid: (text) => UUID.test(text),
  uuid3: (text) => UUID3.test(text),
  uuid4: (text) => UUID4.test(text),
  uuid5: (text) => UUID5.test(text),
  isbn: (text) => ISBN10.test(text.replace(/[\s-]/g, '')) || ISBN13.test(text.replace(/[\s-]/g, '')),
  isbn10: (text) => ISBN10.test(text.replace(/[\s-]/g, '')),
  isbn13: (text) => ISBN13.test(text.replace(/[\s-]/g, '')),
  creditcard: (text) => CREDIT_CARD.test(text.replace(/\D/g, '')),
  ssn: (text) => SSN.test(text),
  hexcolor: (text) => HEX_COLOR.test(text),
  rgbcolor: (text) => RGB_COLOR.test(text),
  byte: (text) => BASE64.test(text),
  password: () => true,
  date: validDate,
  duration: (text) => DURATION.test(text),
  datetime: (text) => DATE_TIME.test(text) && validDate(text.slice(0, 10)),
  k8sshortname: (text) => isDNS1123Label(text).length === 0,
  k8slongname: (text) => text.length <= 253 && K8S_LONG_NAME.test(text),
};

/**
 * Whether a 1.34 server recognizes `format` when a CRD is written: the formats of its
 * compatibility version (1.33), which are all of CHECKS but the two names 1.34 added
 * (k8s-short-name, k8s-long-name). A CRD naming another gets a warning, not an error.
 */
export function isRecognizedFormat(format: string): boolean {
  const normalized = format.replaceAll('-', '');
  return normalized in CHECKS && normalized !== 'k8sshortname' && normalized !== 'k8slongname';
}

/** True when `text` does not have `format`; unknown formats never fail. */
export function formatError(format: string, text: string): boolean {
  const check = CHECKS[format.replaceAll('-', '')];
  return check !== undefined && !check(text);
}
