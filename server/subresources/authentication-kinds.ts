/**
 * Authentication's resources in the registry's handler slots: the create-only reviews
 * `authentication.k8s.io/v1` SelfSubjectReview and TokenReview (virtual: stored nowhere), and
 * the `token` subresource of ServiceAccounts (TokenRequest). Registered once the server has
 * what they need (the token methods, the signing key), so discovery, OpenAPI and routing
 * treat them like any other endpoint.
 */
import type { HandlerScope, ResourceHandler } from '../handlers/scope';
import { admitSubresourceCreate, operationOptions } from '../registry/store/admission';
import { parseWriteOptions, queryOf } from '../request/query';
import { addWarnings, writeResponse } from '../handlers/scope';
import { addAuditAnnotation } from '../audit/record/request-audit';
import { virtualCreateHandler } from '../handlers/virtual-create';
import type { MutableResourceRegistry } from '../registry/registry';
import { buildStrategy } from '../registry/strategy';
import type { ResourceType } from '../registry/types';
import { decodeBodyOfKind, objectBodyFormat, subresourceBodyKind } from '../handlers/object-body';
import { selfSubjectReview } from '../authn/reviews/self-subject-review';
import { tokenReview } from '../authn/reviews/token-review';
import { tokenRequest, type TokenRequestDeps } from '../authn/service-account/token-request';
import type { TokenAuthenticator } from '../authn/types';

const GROUP = 'authentication.k8s.io';

function reviewType(resource: string, kind: string, create: (scope: HandlerScope) => ResourceHandler): ResourceType {
  return {
    group: GROUP,
    resource,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced: false,
    versions: [{ version: 'v1', definition: `io.k8s.api.authentication.v1.${kind}` }],
    storageVersion: 'v1',
    storagePrefix: `${GROUP}/${resource}`,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    subresources: {},
    nameRule: 'dns-subdomain',
    selectableFields: {},
    strategy: buildStrategy({ namespaced: false, nameRule: 'dns-subdomain', hasStatus: false }),
    virtual: true,
    handlers: { verbs: { create } },
  };
}

export interface AuthenticationResourceDeps {
  readonly tokens: TokenAuthenticator;
  readonly apiAudiences: readonly string[];
  readonly tokenRequest: TokenRequestDeps;
  readonly now?: () => Date;
}

export function registerAuthenticationResources(
  registry: MutableResourceRegistry,
  deps: AuthenticationResourceDeps,
): void {
  const now = deps.now ?? (() => new Date());
  registry.addBuiltIn(
    reviewType(
      'selfsubjectreviews',
      'SelfSubjectReview',
      virtualCreateHandler(async (body, { req }) => selfSubjectReview({ body, user: req.user, now: now() })),
    ),
  );
  registry.addBuiltIn(
    reviewType(
      'tokenreviews',
      'TokenReview',
      virtualCreateHandler((body, { info }) =>
        tokenReview({ body, namespace: info.namespace, tokens: deps.tokens, apiAudiences: deps.apiAudiences }),
      ),
    ),
  );
  const serviceAccounts = registry.find({ group: '', version: 'v1' }, 'serviceaccounts');
  if (serviceAccounts === undefined) return;
  registry.add({
    ...serviceAccounts,
    handlers: {
      ...serviceAccounts.handlers,
      subresources: {
        ...serviceAccounts.handlers?.subresources,
        token: {
          kind: { group: GROUP, version: 'v1', kind: 'TokenRequest' },
          definition: 'io.k8s.api.authentication.v1.TokenRequest',
          handlers: {
            create:
              (scope) =>
              async ({ req, res, info }) => {
                // Decoded as any create's body: the scheme's words for another kind or version.
                const query = parseWriteOptions(queryOf(req), 'CreateOptions');
                const expected = subresourceBodyKind(scope, {
                  definition: 'io.k8s.api.authentication.v1.TokenRequest',
                  group: GROUP,
                  version: 'v1',
                  kind: 'TokenRequest',
                });
                const decoded = await decodeBodyOfKind(req, objectBodyFormat(scope, req), expected, query);
                addWarnings(req, decoded.warnings);
                const body = decoded.object;
                // Admitted as the reference does (NodeRestriction keeps a node to tokens of its own pods).

                await admitSubresourceCreate(
                  scope,
                  {
                    user: req.user,
                    dryRun: query.dryRun,
                    options: operationOptions('CreateOptions', query),
                    subresource: 'token',
                    warnings: req.warnings,
                  },
                  {
                    key: { namespace: info.namespace, name: info.name },
                    kind: { group: GROUP, version: 'v1', kind: 'TokenRequest' },
                    object: body,
                  },
                );
                await writeResponse(
                  scope,
                  res,
                  201,
                  await tokenRequest(
                    {
                      body,
                      namespace: info.namespace,
                      name: info.name,
                      annotateAudit: (key, value) => addAuditAnnotation(req, key, value),
                      warn: (message) => addWarnings(req, [message]),
                      deadline: req.deadline,
                    },
                    deps.tokenRequest,
                  ),
                );
              },
          },
        },
      },
    },
  });
}
