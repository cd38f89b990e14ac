/**
 * How `/flagz` prints a flag given more than once or in a form other than pflag's own, as the
 * reference's flag types fold and print them (pflag and k8s.io/component-base/cli/flag, 1.34).
 */
import { printedFlagValue } from '../../../server/config/flag-listing';

it.each([
  ['a list appends each time', 'stringSlice', ['a,b', 'c'], '[a,b,c]'],
  ['an array keeps each value whole', 'stringArray', ['x=1,y', 'z'], '[x=1,y,z]'],
  [
    'a map merges, later keys winning, sorted',
    'mapStringString',
    ['b/v1=true,a/v1=false', 'a/v1=true'],
    'a/v1=true,b/v1=true',
  ],
  [
    'feature gates: by component, stable within one',
    'colonSeparatedMultimapStringString',
    ['kube:B=true,A=false', 'C=true'],
    ':A=false,:C=true,kube:B=true',
  ],
  ['a duration in Go form', 'duration', ['90m'], '1h30m0s'],
  ['a zero duration', 'duration', ['0'], '0s'],
  ['a bool spelled otherwise', 'bool', ['T'], 'true'],
  ['an integer in another base', 'int', ['0x10'], '16'],
  ['a scalar keeps the last', 'string', ['one', 'two'], 'two'],
])('%s', (_name, type, values, printed) => {
  expect(printedFlagValue(type, values)).toBe(printed);
});
