import * as fieldErrors from '../../../server/status/field-errors';
import { FieldPath } from '../../../server/status/field-errors';
import {
  CompactedError,
  FutureRevisionError,
  ObjectError,
  StoreUnavailableError,
  ValueTooLargeError,
} from '../../../storage/errors';
import { forbiddenError } from '../../../server/authz/forbidden';
import { attributesFrom } from '../../../server/authz/types';
import { resolveRequestInfo } from '../../../server/request/request-info';
import * as catalogue from '../../../server/status/catalogue';
import { statusErrorFrom } from '../../../server/status/from-error';
import { StatusError } from '../../../server/status/status-error';

const pods = { group: '', resource: 'pods' };
const deployments = { group: 'apps', resource: 'deployments' };

describe('the catalogue', () => {
  const cases: { name: string; error: StatusError; code: number; reason: string; message: string; details?: object }[] =
    [
      {
        name: 'not found, core',
        error: catalogue.notFound(pods, 'web'),
        code: 404,
        reason: 'NotFound',
        message: 'pods "web" not found',
        details: { name: 'web', kind: 'pods' },
      },
      {
        name: 'not found, group',
        error: catalogue.notFound(deployments, 'web'),
        code: 404,
        reason: 'NotFound',
        message: 'deployments.apps "web" not found',
        details: { name: 'web', group: 'apps', kind: 'deployments' },
      },
      {
        name: 'path not found',
        error: catalogue.pathNotFound(),
        code: 404,
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
        details: {},
      },
      {
        name: 'already exists',
        error: catalogue.alreadyExists(deployments, 'web'),
        code: 409,
        reason: 'AlreadyExists',
        message: 'deployments.apps "web" already exists',
      },
      {
        name: 'object modified',
        error: catalogue.objectModified(pods, 'web'),
        code: 409,
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again',
      },
      {
        name: 'bad request',
        error: catalogue.badRequest('invalid continue token'),
        code: 400,
        reason: 'BadRequest',
        message: 'invalid continue token',
      },
      {
        name: 'unauthorized',
        error: catalogue.unauthorized(),
        code: 401,
        reason: 'Unauthorized',
        message: 'Unauthorized',
      },
      {
        name: 'method not supported',
        error: catalogue.methodNotSupported(deployments, 'watch'),
        code: 405,
        reason: 'MethodNotAllowed',
        message: 'watch is not supported on resources of kind "deployments.apps"',
      },
      {
        name: 'not acceptable',
        error: catalogue.notAcceptable(['application/json', 'application/yaml']),
        code: 406,
        reason: 'NotAcceptable',
        message: 'only the following media types are accepted: application/json, application/yaml',
      },
      {
        name: 'unsupported media type',
        error: catalogue.unsupportedMediaType(['application/json']),
        code: 415,
        reason: 'UnsupportedMediaType',
        message: 'the body of the request was in an unknown format - accepted media types include: application/json',
      },
      {
        name: 'entity too large',
        error: catalogue.requestEntityTooLarge(3145728),
        code: 413,
        reason: 'RequestEntityTooLarge',
        message: 'Request entity too large: limit is 3145728',
      },
      { name: 'gone', error: catalogue.gone('too old'), code: 410, reason: 'Gone', message: 'too old' },
      {
        name: 'expired',
        error: catalogue.resourceExpired('The resourceVersion for the provided watch is too old.'),
        code: 410,
        reason: 'Expired',
        message: 'The resourceVersion for the provided watch is too old.',
      },
      {
        name: 'too large resource version',
        error: catalogue.tooLargeResourceVersion({ requested: 9, current: 5, retryAfterSeconds: 1 }),
        code: 504,
        reason: 'Timeout',
        message: 'Timeout: Too large resource version: 9, current: 5',
        details: {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        },
      },
      {
        name: 'too many requests',
        error: catalogue.tooManyRequests('storage is (re)initializing', 1),
        code: 429,
        reason: 'TooManyRequests',
        message: 'storage is (re)initializing',
        details: { retryAfterSeconds: 1 },
      },
      {
        name: 'internal error',
        error: catalogue.internalError('boom'),
        code: 500,
        reason: 'InternalError',
        message: 'Internal error occurred: boom',
        details: { causes: [{ message: 'boom' }] },
      },
      {
        name: 'service unavailable',
        error: catalogue.serviceUnavailable('not ready'),
        code: 503,
        reason: 'ServiceUnavailable',
        message: 'not ready',
      },
    ];

  it.each(cases)('$name', ({ error, code, reason, message, details }) => {
    expect(error.status).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code,
      reason,
      message,
    });
    if (details) expect(error.status.details).toEqual(details);
  });

  it('words Invalid with field errors as the reference does', () => {
    const error = catalogue.invalid({ group: 'apps', kind: 'Deployment' }, 'web', [
      fieldErrors.required(FieldPath.root('spec', 'selector'), 'must be specified'),
      fieldErrors.invalid(FieldPath.root('spec', 'replicas'), -1, 'must be greater than or equal to 0'),
      fieldErrors.notSupported(FieldPath.root('spec', 'strategy', 'type'), 'Fast', ['Recreate', 'RollingUpdate']),
    ]);
    expect(error.status.code).toBe(422);
    expect(error.status.message).toBe(
      'Deployment.apps "web" is invalid: [spec.selector: Required value: must be specified, ' +
        'spec.replicas: Invalid value: -1: must be greater than or equal to 0, ' +
        'spec.strategy.type: Unsupported value: "Fast": supported values: "Recreate", "RollingUpdate"]',
    );
    expect(error.status.details).toEqual({
      name: 'web',
      group: 'apps',
      kind: 'Deployment',
      causes: [
        { reason: 'FieldValueRequired', message: 'Required value: must be specified', field: 'spec.selector' },
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: -1: must be greater than or equal to 0',
          field: 'spec.replicas',
        },
        {
          reason: 'FieldValueNotSupported',
          message: 'Unsupported value: "Fast": supported values: "Recreate", "RollingUpdate"',
          field: 'spec.strategy.type',
        },
      ],
    });
  });

  it('words a single-error Invalid without brackets', () => {
    const error = catalogue.invalid({ group: '', kind: 'ConfigMap' }, 'cm', [
      fieldErrors.invalid(
        FieldPath.root('metadata', 'name'),
        'A_B',
        'a lowercase RFC 1123 subdomain must consist of ...',
      ),
    ]);
    expect(error.message).toBe(
      'ConfigMap "cm" is invalid: metadata.name: Invalid value: "A_B": a lowercase RFC 1123 subdomain must consist of ...',
    );
  });

  it('serialises in the reference field order, omitting empty details', () => {
    expect(JSON.stringify(catalogue.notFound(pods, 'web').status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"web\\" not found","reason":"NotFound","details":{"name":"web","kind":"pods"},"code":404}',
    );
    expect(JSON.stringify(catalogue.badRequest('x').status)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"x","reason":"BadRequest","code":400}',
    );
  });
});

describe('FieldPath', () => {
  it('joins names with dots, skipping empty ones, as the reference paths do', () => {
    expect(FieldPath.root('metadata').child('name').toString()).toBe('metadata.name');
    expect(FieldPath.root('spec').child('template', 'spec').index(2).child('image').toString()).toBe(
      'spec.template.spec[2].image',
    );
    expect(FieldPath.root('').child('data').toString()).toBe('data');
    expect(FieldPath.root('spec').child('', 'a', '').child('b').toString()).toBe('spec.a.b');
    expect(FieldPath.root('').child('', '').toString()).toBe('');
    expect(FieldPath.root('metadata', 'labels').key('app').child('x').toString()).toBe('metadata.labels[app].x');
  });
});

describe('forbiddenError', () => {
  const anonymous = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  const cases = [
    {
      name: 'namespaced collection',
      method: 'GET',
      path: '/api/v1/namespaces/ns/pods',
      message:
        'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "ns"',
    },
    {
      name: 'cluster scope',
      method: 'GET',
      path: '/api/v1/pods',
      message: 'pods is forbidden: User "system:anonymous" cannot list resource "pods" at the cluster scope'.replace(
        ' at',
        ' in API group "" at',
      ),
    },
    {
      name: 'named, with subresource, in a group',
      method: 'PUT',
      path: '/apis/apps/v1/namespaces/ns/deployments/web/scale',
      message:
        'deployments.apps "web" is forbidden: User "system:anonymous" cannot update resource "deployments/scale" in API group "apps" in the namespace "ns"',
    },
    {
      name: 'named cluster-scoped',
      method: 'DELETE',
      path: '/api/v1/nodes/n1',
      message:
        'nodes "n1" is forbidden: User "system:anonymous" cannot delete resource "nodes" in API group "" at the cluster scope',
    },
    {
      name: 'non-resource path',
      method: 'GET',
      path: '/metrics',
      message: 'forbidden: User "system:anonymous" cannot get path "/metrics"',
    },
  ];
  it.each(cases)('$name', ({ method, path, message }) => {
    const error = forbiddenError(attributesFrom(resolveRequestInfo({ method, path, query: '' }), anonymous), '');
    expect(error.status.code).toBe(403);
    expect(error.status.reason).toBe('Forbidden');
    expect(error.message).toBe(message);
  });

  it("quotes a user's name as Go's %q does", () => {
    const user = { name: 'a\x01\ufeff', groups: [] };
    const error = forbiddenError(
      attributesFrom(resolveRequestInfo({ method: 'GET', path: '/x', query: '' }), user),
      '',
    );
    expect(error.message).toBe('forbidden: User "a\\x01\\ufeff" cannot get path "/x"');
  });

  it('appends the authorizer reason and escapes HTML from the request', () => {
    const error = forbiddenError(
      attributesFrom(resolveRequestInfo({ method: 'GET', path: '/<b>', query: '' }), anonymous),
      'RBAC: role "x" not found',
    );
    expect(error.message).toBe(
      'forbidden: User "system:anonymous" cannot get path "/&lt;b&gt;": RBAC: role "x" not found',
    );
  });
});

describe('statusErrorFrom', () => {
  it('keeps StatusErrors', () => {
    const error = catalogue.badRequest('x');
    expect(statusErrorFrom(error)).toBe(error);
  });

  it.each([
    { reason: 'NotFound', code: 404, statusReason: 'NotFound' },
    { reason: 'AlreadyExists', code: 409, statusReason: 'AlreadyExists' },
    { reason: 'Conflict', code: 409, statusReason: 'Conflict' },
    { reason: 'Expired', code: 410, statusReason: 'Expired' },
    { reason: 'TooLargeResourceVersion', code: 504, statusReason: 'Timeout' },
    { reason: 'BadRequest', code: 400, statusReason: 'BadRequest' },
    { reason: 'Invalid', code: 500, statusReason: undefined },
    { reason: 'InternalError', code: 500, statusReason: 'InternalError' },
  ] as const)('maps ObjectError $reason to $code', ({ reason, code, statusReason }) => {
    const status = statusErrorFrom(new ObjectError(reason, 'the text', { name: 'web' }), {
      resource: deployments,
    }).status;
    expect(status).toMatchObject({ code, message: 'the text' });
    // An unclassified error has no reason, which its Status leaves out.
    expect(status.reason).toBe(statusReason);
  });

  it('fills details from the handler context', () => {
    const status = statusErrorFrom(new ObjectError('NotFound', 'deployments.apps "web" not found', { name: 'web' }), {
      resource: deployments,
    }).status;
    expect(status.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
  });

  it('carries the fresh continue token of an expired continue', () => {
    const status = statusErrorFrom(
      new ObjectError('Expired', 'The provided continue parameter is too old ...', { continueToken: 'abc' }),
    ).status;
    expect(status.metadata).toEqual({ continue: 'abc' });
  });

  // Once waited for, a too-large revision comes with a Retry-After; refused at once by the store
  // (an exact read), it comes with none, as the reference's etcd read answers.
  it.each([
    [1, { retryAfterSeconds: 1 }],
    [0, {}],
  ])('gives a too-large resource version refused with retryAfterSeconds %s the details', (seconds, retry) => {
    const status = statusErrorFrom(
      new ObjectError('TooLargeResourceVersion', 'Timeout: Too large resource version: 9, current: 5', {
        retryAfterSeconds: seconds,
      }),
    ).status;
    expect(status.details).toEqual({
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      ...retry,
    });
  });

  it('maps raw storage errors', () => {
    expect(statusErrorFrom(new CompactedError(3, 7)).status).toMatchObject({
      code: 410,
      reason: 'Expired',
      message: 'too old resource version: 3 (7)',
    });
    expect(statusErrorFrom(new FutureRevisionError(9, 5)).status).toMatchObject({ code: 504, reason: 'Timeout' });
    expect(statusErrorFrom(new StoreUnavailableError('etcdserver: request timed out')).status).toMatchObject({
      code: 504,
      reason: 'Timeout',
      message: 'Timeout: request did not complete within requested timeout - etcdserver: request timed out',
    });
    expect(statusErrorFrom(new ValueTooLargeError(2_000_000)).status).toMatchObject({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: limit is 1564672',
    });
    expect(statusErrorFrom(new TypeError('x is undefined')).status).toMatchObject({
      code: 500,
      message: 'x is undefined',
    });
  });
});

describe('a list that met more unreadable objects than it reports', () => {
  const configmaps = { group: '', resource: 'configmaps' };
  const corruptValues = Array.from({ length: 100 }, (_, index) => ({
    key: `/registry/configmaps/ns/c${String(index).padStart(3, '0')}`,
    failure: 'undecodable' as const,
    revision: 7,
    cause: 'bad bytes',
  }));
  const error = new ObjectError('StorageReadError', 'failed to read one or more configmaps from the storage', {
    name: 'list',
    corruptValues,
    moreCorruptValues: true,
  });

  it('with AllowUnsafeMalformedObjectDeletion: 100 causes, then the reference says FieldValueTooMany', () => {
    const corruptObjects = { unsafeDeletion: true, etcdPrefix: '/registry' };
    const causes = statusErrorFrom(error, { resource: configmaps, corruptObjects }).status.details?.causes ?? [];
    expect(causes).toHaveLength(101);
    expect(causes[0]).toEqual({
      reason: 'UnexpectedServerResponse',
      message:
        'StorageError: corrupt object, Code: 7, Key: /registry/configmaps/ns/c000, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=7: bad bytes',
      field: '/registry/configmaps/ns/c000',
    });
    expect(causes[100]).toEqual({ reason: 'FieldValueTooMany', message: 'too many errors, the list is truncated' });
  });

  it('without the gate: the first one alone, in the decoder’s words', () => {
    expect(statusErrorFrom(error, { resource: configmaps }).status).toMatchObject({ code: 500, message: 'bad bytes' });
  });
});
