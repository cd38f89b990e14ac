/**
 * The Kubernetes authorizer library: `authorizer.group(g).resource(r)` with optional
 * `subresource`, `namespace`, `name`, `fieldSelector`, `labelSelector`, then `check(verb)`; `authorizer.path(p).check(verb)`;
 * `authorizer.serviceAccount(ns, name)`; a decision answers `allowed()`, `reason()`,
 * `errored()` and `error()`. Checks go to the server's authorizer through a function the
 * caller supplies, which may answer at once or later; each costs 350,000, so that one
 * expression can make at most two.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { UserInfo } from '../../../api/user-info';
import type { CelLibrary } from './library';
import { LIST_CREATE_COST, STRING_TRAVERSAL_FACTOR, STRUCT_CREATE_COST } from '../runtime-cost';

export interface ResourceCheckAttributes {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /**
   * Selectors as written (`spec.nodeName=n1`, `app in (a,b)`); the checker parses them, and
   * asks without the requirements of one that does not parse, as the reference does.
   */
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

export interface AuthorizationCheck {
  readonly user: UserInfo;
  readonly verb: string;
  readonly resource?: ResourceCheckAttributes;
  readonly path?: string;
}

export interface AuthorizationCheckResult {
  readonly decision: 'allow' | 'deny' | 'no-opinion';
  readonly reason: string;
  /** Set when the authorizer failed to decide. */
  readonly error?: string;
}

/** The server's authorizer, asked one check: now, or later (a promise). */
export type AuthorizationChecker = (
  check: AuthorizationCheck,
) => AuthorizationCheckResult | Promise<AuthorizationCheckResult>;

export const AUTHORIZER_CHECK_COST = 350_000;

/** The reference's price of parsing a selector: each requirement is a struct and a list, at most one per 2 characters. */
export function selectorParseCost(length: number): number {
  const requirements = Math.ceil(length * 0.5);
  return (
    LIST_CREATE_COST +
    Math.ceil(length * STRING_TRAVERSAL_FACTOR) +
    requirements * (LIST_CREATE_COST + STRUCT_CREATE_COST)
  );
}

/**
 * Answers of one request's authorization checks, shared by an authorizer and the service-account
 * authorizers made from it. An authorizer may answer later (a webhook): then the check is
 * recorded as pending and the evaluation that asked is abandoned; `evaluateWithAuthorizer`
 * waits for the answers and evaluates again (expressions have no side effects), at most once
 * per distinct check.
 */
class CheckAnswers {
  readonly answers = new Map<string, AuthorizationCheckResult>();
  readonly pending = new Map<string, Promise<void>>();
}

/** Thrown into an evaluation that asked a check whose answer is not in yet. */
export class PendingAuthorizationError extends Error {
  constructor() {
    super('authorization check pending');
    this.name = 'PendingAuthorizationError';
  }
}

/** The value of the `authorizer` variable: checks on behalf of `user`. */
export class CelAuthorizer {
  constructor(
    readonly user: UserInfo,
    readonly checker: AuthorizationChecker,
    private readonly checks: CheckAnswers = new CheckAnswers(),
  ) {}

  serviceAccount(namespace: string, name: string): CelAuthorizer {
    return new CelAuthorizer(
      {
        name: `system:serviceaccount:${namespace}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
      },
      this.checker,
      this.checks,
    );
  }

  /** The answer to `check`, asking the checker the first time. */
  answer(check: AuthorizationCheck): AuthorizationCheckResult {
    const key = JSON.stringify(check);
    const known = this.checks.answers.get(key);
    if (known) return known;
    let result: AuthorizationCheckResult | Promise<AuthorizationCheckResult>;
    try {
      result = this.checker(check);
    } catch (error) {
      result = errored(error);
    }
    if (result instanceof Promise) {
      this.checks.pending.set(
        key,
        result.then(
          (answer) => void this.checks.answers.set(key, answer),
          (error: unknown) => void this.checks.answers.set(key, errored(error)),
        ),
      );
      throw new PendingAuthorizationError();
    }
    this.checks.answers.set(key, result);
    return result;
  }

  /** Waits for the checks asked but not answered; false when there were none. */
  async settle(): Promise<boolean> {
    if (this.checks.pending.size === 0) return false;
    const waiting = [...this.checks.pending.values()];
    this.checks.pending.clear();
    await Promise.all(waiting);
    return true;
  }
}

function errored(error: unknown): AuthorizationCheckResult {
  return { decision: 'no-opinion', reason: '', error: error instanceof Error ? error.message : String(error) };
}

export class PathCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

export class GroupCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

export class ResourceCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly attributes: ResourceCheckAttributes,
  ) {}

  with(change: Partial<ResourceCheckAttributes>): ResourceCheck {
    return new ResourceCheck(this.authorizer, { ...this.attributes, ...change });
  }
}

export class Decision {
  constructor(readonly result: AuthorizationCheckResult) {}
}

function decide(
  authorizer: CelAuthorizer,
  verb: string,
  target: Pick<AuthorizationCheck, 'resource' | 'path'>,
): Decision {
  return new Decision(authorizer.answer({ user: authorizer.user, verb, ...target }));
}

const A = 'kubernetes.authorization.Authorizer';
const P = 'kubernetes.authorization.PathCheck';
const G = 'kubernetes.authorization.GroupCheck';
const R = 'kubernetes.authorization.ResourceCheck';
const D = 'kubernetes.authorization.Decision';

/** The CEL type name of the `authorizer` variable. */
export const AUTHORIZER_TYPE = A;

export const authorizerLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType(A, CelAuthorizer)
      .registerType(P, PathCheck)
      .registerType(G, GroupCheck)
      .registerType(R, ResourceCheck)
      .registerType(D, Decision)
      .registerFunction(`${A}.path(string): ${P}`, (a: CelAuthorizer, path: string) => new PathCheck(a, path))
      .registerFunction(`${A}.group(string): ${G}`, (a: CelAuthorizer, group: string) => new GroupCheck(a, group))
      .registerFunction(`${A}.serviceAccount(string, string): ${A}`, (a: CelAuthorizer, ns: string, name: string) =>
        a.serviceAccount(ns, name),
      )
      .registerFunction(
        `${G}.resource(string): ${R}`,
        (g: GroupCheck, resource: string) =>
          new ResourceCheck(g.authorizer, { group: g.group, resource, subresource: '', namespace: '', name: '' }),
      )
      .registerFunction(`${R}.subresource(string): ${R}`, (r: ResourceCheck, subresource: string) =>
        r.with({ subresource }),
      )
      .registerFunction(`${R}.namespace(string): ${R}`, (r: ResourceCheck, namespace: string) => r.with({ namespace }))
      .registerFunction(`${R}.name(string): ${R}`, (r: ResourceCheck, name: string) => r.with({ name }))
      .registerFunction(`${R}.fieldSelector(string): ${R}`, (r: ResourceCheck, fieldSelector: string) =>
        r.with({ fieldSelector }),
      )
      .registerFunction(`${R}.labelSelector(string): ${R}`, (r: ResourceCheck, labelSelector: string) =>
        r.with({ labelSelector }),
      )
      .registerFunction(`${R}.check(string): ${D}`, (r: ResourceCheck, verb: string) =>
        decide(r.authorizer, verb, { resource: r.attributes }),
      )
      .registerFunction(`${P}.check(string): ${D}`, (p: PathCheck, verb: string) =>
        decide(p.authorizer, verb, { path: p.path }),
      )
      .registerFunction(`${D}.allowed(): bool`, (d: Decision) => d.result.decision === 'allow')
      .registerFunction(`${D}.reason(): string`, (d: Decision) => d.result.reason)
      .registerFunction(`${D}.errored(): bool`, (d: Decision) => d.result.error !== undefined)
      .registerFunction(`${D}.error(): string`, (d: Decision) => d.result.error ?? '');
  },
  costs: {
    '.check': () => AUTHORIZER_CHECK_COST,
    '.fieldSelector': ([, selector]) => selectorParseCost(String(selector).length),
    '.labelSelector': ([, selector]) => selectorParseCost(String(selector).length),
  },
};
