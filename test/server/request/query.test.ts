/**
 * A request's query as Go parses it, parsed once however many stages (and following requests)
 * read it.
 */
import type { IncomingMessage } from 'node:http';
import { queryOf } from '../../../server/request/query';

const request = (url: string): IncomingMessage => ({ url }) as IncomingMessage;

test('values as Go reads them: plus is a space, bad escapes and semicolons drop their pair', () => {
  const query = queryOf(request('/api/v1/pods?labelSelector=a+b%3Dc&limit=5&bad=%zz&x=1;y=2&&watch'));
  expect(query.get('labelSelector')).toBe('a b=c');
  expect(query.get('limit')).toBe('5');
  expect(query.has('bad')).toBe(false);
  expect(query.has('x')).toBe(false);
  expect(query.get('watch')).toBe('');
  expect(query.getAll('limit')).toEqual(['5']);
});

test('a query read again, by this request or the next, is parsed once; another is parsed anew', () => {
  const req = request('/apis/apps/v1/deployments?limit=5');
  const first = queryOf(req);
  expect(queryOf(req)).toBe(first);
  expect(queryOf(request('/deployments?limit=5'))).toBe(first);
  const changed = queryOf(request('/deployments?limit=6'));
  expect(changed).not.toBe(first);
  expect(changed.get('limit')).toBe('6');
  expect(queryOf(req).get('limit')).toBe('5');
  expect(queryOf(request('/api/v1/pods')).has('limit')).toBe(false);
});
