import { goMediaType } from '../../../server/codec/go-media-type';

// Each answer recorded from kube-apiserver v1.34.4: a POST with the header as Content-Type is
// created (taken) or refused 415 (the reference's mime.ParseMediaType refused it).
describe("Go's mime.ParseMediaType", () => {
  it.each([
    ['application/json', 'application/json'],
    ['Application/JSON', 'application/json'],
    ['application/json;', 'application/json'],
    ['application/json; ', 'application/json'],
    ['application/json;charset=utf-8;', 'application/json'],
    ['application/json ;charset=utf-8', 'application/json'],
    ['application/json;a="x;y"', 'application/json'],
    ['application/json;a=b;a=b', 'application/json'],
    ['application/json; a = b', 'application/json'],
  ])('takes %j as %s', (header, mediaType) => {
    expect(goMediaType(header)).toBe(mediaType);
  });

  it.each([
    'application/json;;;;',
    'application/json;=x',
    'application/json;a=',
    'application/json;a="x',
    'application/json;a=b;a=c',
    'application/json, text/plain',
    'application/json;a=b c',
    'application/json; foo',
    'application /json',
    'application/',
    '/json',
    '',
  ])('refuses %j', (header) => {
    expect(goMediaType(header)).toBeUndefined();
  });
});
