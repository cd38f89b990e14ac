/**
 * goFormatFloat (api/go-number.ts), Go's strconv.FormatFloat(v, 'g', -1, bitSize): the fewest
 * digits that read back as the same float of that size, the exponent form below 1e-4 and from
 * 1e6 on. The 32-bit forms are what the reference made of YAML keys
 * (test/server/codec/fixtures/yaml-bodies.reference.json).
 */
import { goFormatFloat } from '../../api/go-number';

test.each([
  [1e6, '1e+06'],
  [123456, '123456'],
  [1234567, '1.234567e+06'],
  [0.0001, '0.0001'],
  [0.00001, '1e-05'],
  [1.5e-7, '1.5e-07'],
  [1e21, '1e+21'],
  [1e100, '1e+100'],
  [100, '100'],
  [2.5, '2.5'],
  [-0.5, '-0.5'],
  [-0, '-0'],
  [0, '0'],
  [1e20, '1e+20'],
  [NaN, 'NaN'],
  [Infinity, '+Inf'],
  [-Infinity, '-Inf'],
])('64-bit %p is %p', (value, text) => {
  expect(goFormatFloat(value, 64)).toBe(text);
});

test.each([
  [3.14159265358979, '3.1415927'],
  [0.1, '0.1'],
  [1e30, '1e+30'],
  [0.000012345, '1.2345e-05'],
  [1234567, '1.234567e+06'],
  [1000, '1000'],
  [12.5, '12.5'],
])('32-bit %p is %p', (value, text) => {
  expect(goFormatFloat(value, 32)).toBe(text);
});
