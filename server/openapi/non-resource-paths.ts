/**
 * The paths outside the group-versions that the reference documents in OpenAPI v3, each in a
 * document of its own that `/openapi/v3` lists: discovery (`/api/`, `/apis/`, each built-in
 * group's `/apis/<group>/`), `/version/`, and the service-account issuer's OpenID discovery.
 */
import type { ServedGroup } from '../discovery/served-groups';
import {
  groupCamelCase,
  isCustomResource,
  OBJECT_MEDIA_TYPES,
  UNAUTHORIZED,
  type ApiOperation,
  type ApiPath,
} from './operations';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** One GET path, as these are: no parameters, no action, an answer or 401. */
function getPath(
  path: string,
  operation: Pick<ApiOperation, 'operationId' | 'description' | 'tag' | 'responseMediaTypes' | 'consumes'> & {
    definition?: string;
  },
): ApiPath {
  const answer = operation.definition === undefined ? { bytes: true as const } : { definition: operation.definition };
  return {
    path,
    parameters: [],
    operations: [
      {
        method: 'get',
        operationId: operation.operationId,
        description: operation.description,
        tag: operation.tag,
        parameters: [],
        responses: [{ code: 200, description: 'OK', ...answer }, UNAUTHORIZED],
        responseMediaTypes: operation.responseMediaTypes,
        consumes: operation.consumes,
      },
    ],
  };
}

/** Key in the `/openapi/v3` index → the paths of its document. */
export function nonResourceDocuments(groups: readonly ServedGroup[]): Map<string, ApiPath[]> {
  const documents = new Map<string, ApiPath[]>([
    [
      '.well-known/openid-configuration',
      [
        getPath('/.well-known/openid-configuration/', {
          operationId: 'getServiceAccountIssuerOpenIDConfiguration',
          description: "get service account issuer OpenID configuration, also known as the 'OIDC discovery doc'",
          tag: 'WellKnown',
          responseMediaTypes: ['application/json'],
          consumes: [],
        }),
      ],
    ],
    [
      'api',
      [
        getPath('/api/', {
          operationId: 'getCoreAPIVersions',
          description: 'get available API versions',
          tag: 'core',
          definition: `${META}.APIVersions`,
          responseMediaTypes: OBJECT_MEDIA_TYPES,
          consumes: OBJECT_MEDIA_TYPES,
        }),
      ],
    ],
    [
      'apis',
      [
        getPath('/apis/', {
          operationId: 'getAPIVersions',
          description: 'get available API versions',
          tag: 'apis',
          definition: `${META}.APIGroupList`,
          responseMediaTypes: OBJECT_MEDIA_TYPES,
          consumes: OBJECT_MEDIA_TYPES,
        }),
      ],
    ],
  ]);
  // Custom resources' groups are discovered through the apiextensions server, which documents none.
  const builtInGroups = groups.filter(
    (group) => group.name !== '' && group.versions.some((version) => !version.resources.every(isCustomResource)),
  );
  for (const { name } of builtInGroups) {
    const camel = groupCamelCase(name);
    documents.set(`apis/${name}`, [
      getPath(`/apis/${name}/`, {
        operationId: `get${camel}APIGroup`,
        description: 'get information of a group',
        tag: `${camel.charAt(0).toLowerCase()}${camel.slice(1)}`,
        definition: `${META}.APIGroup`,
        responseMediaTypes: OBJECT_MEDIA_TYPES,
        consumes: OBJECT_MEDIA_TYPES,
      }),
    ]);
  }
  documents.set('openid/v1/jwks', [
    getPath('/openid/v1/jwks/', {
      operationId: 'getServiceAccountIssuerOpenIDKeyset',
      description: 'get service account issuer OpenID JSON Web Key Set (contains public token verification keys)',
      tag: 'openid',
      responseMediaTypes: ['application/jwk-set+json'],
      consumes: [],
    }),
  ]);
  documents.set('version', [
    getPath('/version/', {
      operationId: 'getCodeVersion',
      description: 'get the version information for this server',
      tag: 'version',
      definition: 'io.k8s.apimachinery.pkg.version.Info',
      responseMediaTypes: ['application/json'],
      consumes: ['application/json'],
    }),
  ]);
  return documents;
}
