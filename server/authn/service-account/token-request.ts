/**
 * `POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token` (TokenRequest): mints a token
 * for an existing account, for the audiences asked (the API server's by default), for
 * `expirationSeconds` (default 1 h, at least 10 min, capped by
 * `--service-account-max-token-expiration`), optionally bound to a pod, secret or node that
 * must exist (and match `uid` when given). As in the reference, the kubelet's 3607 s pod-bound
 * tokens for the API server are extended to a year with `warnafter` at the hour.
 */
import { randomUUID } from 'node:crypto';
import { goQuote } from '../../../api/go-quote';
import { badRequest, conflict, internalError, invalid, namespaceMismatch, notFound } from '../../status/catalogue';
import { FieldPath, invalid as invalidField } from '../../status/field-errors';
import { reviewBody } from '../reviews/review-body';
import type { ObjectLookup } from './authenticator';
import { serviceAccountClaims, type ObjectRef, type TokenSigner } from './claims';
import { metaTime } from '../../../api/objects';
import { parseGroupVersion } from '../../../api/identity';

export const TOKEN_REQUEST_VERSION = 'authentication.k8s.io/v1';
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** The kubelet asks for this lifetime; the reference extends such tokens and warns after the hour. */
export const WARN_ONLY_BOUND_EXPIRATION_SECONDS = 3607;
export const EXTENDED_EXPIRATION_SECONDS = 365 * 24 * 3600;

export interface TokenRequestDeps {
  readonly lookup: ObjectLookup;
  readonly signer: TokenSigner;
  readonly issuer: string;
  readonly apiAudiences: readonly string[];
  /** 0: no cap. */
  readonly maxExpirationSeconds: number;
  /** `--service-account-extend-token-expiration`: the kubelet's hour-long pod tokens live a year, with `warnafter`. */
  readonly extendExpiration: boolean;
  /** The extended lifetime: a year, or less when an external signer signs nothing longer. */
  readonly maxExtendedExpirationSeconds: number;
  /**
   * TokenRequestServiceAccountUIDValidation: a request whose `metadata.uid` is not the account's
   * is refused; else the mismatch is only noted in the request's audit event.
   */
  readonly rejectUIDMismatch: boolean;
  readonly now?: () => Date;
  readonly newId?: () => string;
}

interface BoundObjectRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: BoundObjectRef | null;
}

export interface TokenRequest {
  kind: 'TokenRequest';
  apiVersion: string;
  metadata: Record<string, unknown>;
  spec: TokenRequestSpec;
  status: { token: string; expirationTimestamp: string };
}

const GROUP_KIND = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

export async function tokenRequest(
  input: {
    readonly body: unknown;
    readonly namespace: string;
    readonly name: string;
    /** Adds an annotation to the request's audit event, when it has one. */
    readonly annotateAudit?: (key: string, value: string) => void;
    /** Sends a warning to the client. */
    readonly warn?: (message: string) => void;
    /** The request's deadline (epoch ms), which the signer need not outlast. */
    readonly deadline?: number;
  },
  deps: TokenRequestDeps,
): Promise<TokenRequest> {
  const body = reviewBody(input.body, { kind: 'TokenRequest', apiVersion: TOKEN_REQUEST_VERSION });
  const metadata = { ...((body.metadata ?? {}) as Record<string, unknown>) };
  // The create handler's check, first: the storage's own 422 for the namespace is never reached.
  if (metadata.namespace !== undefined && metadata.namespace !== '' && metadata.namespace !== input.namespace)
    throw namespaceMismatch();
  if (metadata.name !== undefined && metadata.name !== '' && metadata.name !== input.name) {
    throw invalid(GROUP_KIND, input.name, [
      invalidField(
        FieldPath.root('metadata', 'name'),
        metadata.name,
        'must match the service account name if specified',
      ),
    ]);
  }
  const account = await deps.lookup('serviceaccounts', input.namespace, input.name);
  if (account === undefined) throw notFound({ group: '', resource: 'serviceaccounts' }, input.name);
  const requestUID = typeof metadata.uid === 'string' ? metadata.uid : '';
  const accountUID = String(account.metadata.uid ?? '');
  if (requestUID !== '' && requestUID !== accountUID) {
    const mismatch = `the UID in the token request (${requestUID}) does not match the UID of the service account (${accountUID})`;
    // The reference names the kind where a resource goes: "TokenRequest.authentication.k8s.io".
    if (deps.rejectUIDMismatch)
      throw conflict({ group: GROUP_KIND.group, resource: GROUP_KIND.kind }, input.name, mismatch);
    input.annotateAudit?.('authentication.k8s.io/token-request-uid-mismatch', mismatch);
  }

  const spec = { ...((body.spec ?? {}) as TokenRequestSpec) };
  if (
    // null is Go's nil slice: no audiences, as when absent.
    spec.audiences != null &&
    !(Array.isArray(spec.audiences) && spec.audiences.every((a) => typeof a === 'string'))
  ) {
    throw badRequest('TokenRequest.spec.audiences: expected a list of strings');
  }
  if (!spec.audiences || spec.audiences.length === 0) spec.audiences = [...deps.apiAudiences];
  spec.expirationSeconds ??= DEFAULT_EXPIRATION_SECONDS;
  const now = (deps.now ?? (() => new Date()))();
  metadata.name = input.name;
  metadata.namespace = input.namespace;
  metadata.creationTimestamp = metaTime(now);

  const expiration = spec.expirationSeconds;
  if (typeof expiration !== 'number' || !Number.isInteger(expiration))
    throw badRequest('TokenRequest.spec.expirationSeconds: expected an integer');
  if (expiration < MIN_EXPIRATION_SECONDS) {
    throw invalid(GROUP_KIND, '', [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        detail: `Invalid value: ${expiration}: may not specify a duration less than 10 minutes`,
      },
    ]);
  }
  if (expiration > MAX_EXPIRATION_SECONDS) {
    throw invalid(GROUP_KIND, '', [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        detail: `Invalid value: ${expiration}: may not specify a duration larger than 2^32 seconds`,
      },
    ]);
  }

  const bound = await boundObjects(spec.boundObjectRef ?? undefined, input, deps.lookup);
  let lifetime = expiration;
  if (deps.maxExpirationSeconds > 0 && lifetime > deps.maxExpirationSeconds) {
    input.warn?.(`requested expiration of ${lifetime} seconds shortened to ${deps.maxExpirationSeconds} seconds`);
    lifetime = deps.maxExpirationSeconds;
  }
  let warnAfterSeconds: number | undefined;
  const forApiServer =
    spec.audiences.length === deps.apiAudiences.length && spec.audiences.every((a) => deps.apiAudiences.includes(a));
  if (deps.extendExpiration && bound.pod && expiration === WARN_ONLY_BOUND_EXPIRATION_SECONDS && forApiServer) {
    warnAfterSeconds = lifetime;
    lifetime = deps.maxExtendedExpirationSeconds;
  }
  const claims = serviceAccountClaims({
    issuer: deps.issuer,
    audiences: spec.audiences,
    serviceAccount: { namespace: input.namespace, name: input.name, uid: String(account.metadata.uid ?? '') },
    expirationSeconds: lifetime,
    warnAfterSeconds,
    ...bound,
    now,
    id: (deps.newId ?? randomUUID)(),
  });
  let token: string;
  try {
    token = await deps.signer.sign(claims, input.deadline);
  } catch (error) {
    throw internalError(`failed to generate token: ${(error as Error).message}`);
  }
  return {
    kind: 'TokenRequest',
    apiVersion: TOKEN_REQUEST_VERSION,
    metadata,
    spec: {
      audiences: spec.audiences,
      expirationSeconds: warnAfterSeconds ?? lifetime,
      boundObjectRef: spec.boundObjectRef ?? null,
    },
    status: { token, expirationTimestamp: metaTime(new Date(now.getTime() + (warnAfterSeconds ?? lifetime) * 1000)) },
  };
}

async function boundObjects(
  ref: BoundObjectRef | undefined,
  input: { readonly namespace: string; readonly name: string },
  lookup: ObjectLookup,
): Promise<{ pod?: ObjectRef; secret?: ObjectRef; node?: ObjectRef }> {
  if (ref === undefined) return {};
  const apiVersion = ref.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const name = ref.name ?? '';
  const fetch = async (resource: 'pods' | 'secrets' | 'nodes', namespace: string) => {
    const object = await lookup(resource, namespace, name);
    if (object === undefined) throw notFound({ group: '', resource }, name);
    return { object, ref: { name, uid: String(object.metadata.uid ?? '') } };
  };
  // The reference compares the uid last, once the kind's own checks passed.
  const checked = (found: ObjectRef): ObjectRef => {
    if (ref.uid && ref.uid !== found.uid) {
      throw conflict(
        { group, resource: ref.kind ?? '' },
        name,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    return found;
  };
  if (group === '' && ref.kind === 'Pod') {
    const { object, ref: found } = await fetch('pods', input.namespace);
    const spec = (object.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
    if (spec.serviceAccountName !== input.name) {
      throw badRequest(
        `cannot bind token for serviceaccount ${goQuote(input.name)} to pod running with different serviceaccount name.`,
      );
    }
    const pod = checked(found);
    // The pod's node goes into the token when it is known; a node that is gone is simply left out.
    const node = spec.nodeName ? await lookup('nodes', '', spec.nodeName) : undefined;
    return node ? { pod, node: { name: spec.nodeName ?? '', uid: String(node.metadata.uid ?? '') } } : { pod };
  }
  if (group === '' && ref.kind === 'Secret') return { secret: checked((await fetch('secrets', input.namespace)).ref) };
  if (group === '' && ref.kind === 'Node') return { node: checked((await fetch('nodes', '')).ref) };
  // Go's GroupVersionKind.String(): `<group>/<version>, Kind=<kind>`, the core group empty (`/v1`).
  const { group: refGroup, version } = parseGroupVersion(apiVersion) ?? { group: '', version: '' };
  throw badRequest(`cannot bind token to object of type ${refGroup}/${version}, Kind=${ref.kind ?? ''}`);
}
