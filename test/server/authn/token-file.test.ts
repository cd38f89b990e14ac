import { parseTokenFile } from '../../../server/authn/token-file';

test('three columns at least; the fourth holds every group; later duplicates win', () => {
  const warnings: string[] = [];
  const tokens = parseTokenFile('f.csv', 'a,alice,1,"g1,g2"\n,empty,2\nb,bob,3\nb,bobby,4\n', (w) => warnings.push(w));
  expect(tokens.get('a')).toEqual({ name: 'alice', uid: '1', groups: ['g1', 'g2'] });
  expect(tokens.get('b')).toEqual({ name: 'bobby', uid: '4', groups: [] });
  expect(tokens.size).toBe(2);
  expect(warnings).toEqual([
    "empty token has been found in token file 'f.csv', record number '2'",
    "duplicate token has been found in token file 'f.csv', record number '4'",
  ]);
  expect(() => parseTokenFile('f.csv', 'a,alice\n')).toThrow(
    "token file 'f.csv' must have at least 3 columns (token, user name, user uid), found 2",
  );
});
