/**
 * Classifies a request as API Priority and Fairness does: the first FlowSchema (by
 * matchingPrecedence, then name) whose priority level exists and one of whose rules matches the
 * request's user and its resource or non-resource attributes; its priority level; and the flow
 * the request belongs to (the schema plus the user's name or the namespace, by its
 * distinguisher). A request no schema matches goes to `catch-all`.
 */
import type { KubeObject } from '../../api/objects';
import type { UserInfo } from '../../api/user-info';
import type { RequestInfo } from '../request/request-info';
import { SERVICE_ACCOUNT_USERNAME_PREFIX } from '../authn/service-account/names';

export interface FlowRequest {
  readonly user: UserInfo;
  readonly info: RequestInfo;
}

export interface Classification {
  readonly schema: KubeObject;
  readonly level: KubeObject;
  /** Which flow of the schema: requests of one flow share a queue's turn. */
  readonly flowKey: string;
}

interface Subject {
  readonly kind?: string;
  readonly user?: { name?: string };
  readonly group?: { name?: string };
  readonly serviceAccount?: { namespace?: string; name?: string };
}

interface ResourceRule {
  readonly verbs?: string[];
  readonly apiGroups?: string[];
  readonly resources?: string[];
  readonly clusterScope?: boolean;
  readonly namespaces?: string[];
}

interface NonResourceRule {
  readonly verbs?: string[];
  readonly nonResourceURLs?: string[];
}

interface PolicyRules {
  readonly subjects?: Subject[];
  readonly resourceRules?: ResourceRule[];
  readonly nonResourceRules?: NonResourceRule[];
}

interface SchemaSpec {
  readonly priorityLevelConfiguration?: { name?: string };
  readonly matchingPrecedence?: number;
  readonly distinguisherMethod?: { type?: string };
  readonly rules?: PolicyRules[];
}

function specOf(schema: KubeObject): SchemaSpec {
  return (schema.spec as SchemaSpec | undefined) ?? {};
}

function has(list: readonly string[] | undefined, value: string): boolean {
  return list !== undefined && (list.includes('*') || list.includes(value));
}

function subjectMatches(subject: Subject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user?.name === '*' || subject.user?.name === user.name;
    case 'Group':
      return (
        subject.group?.name === '*' || (subject.group?.name !== undefined && user.groups.includes(subject.group.name))
      );
    case 'ServiceAccount': {
      if (!user.name.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return false;
      const [namespace, name] = user.name.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(':');
      const account = subject.serviceAccount;
      return account?.namespace === namespace && (account.name === '*' || account.name === name);
    }
    default:
      return false;
  }
}

function resourceRuleMatches(rule: ResourceRule, info: RequestInfo): boolean {
  if (!has(rule.verbs, info.verb) || !has(rule.apiGroups, info.apiGroup)) return false;
  const resource = info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`;
  if (!has(rule.resources, resource)) return false;
  return info.namespace === '' ? rule.clusterScope === true : has(rule.namespaces, info.namespace);
}

/** `*` matches every path; `/prefix/*` matches the prefix and everything below it. */
function nonResourceURLMatches(urls: readonly string[] | undefined, path: string): boolean {
  return (urls ?? []).some((url) => {
    if (url === '*' || url === path) return true;
    if (!url.endsWith('/*')) return false;
    const prefix = url.slice(0, -2);
    return path === prefix || path.startsWith(`${prefix}/`);
  });
}

function rulesMatch(rules: PolicyRules, { user, info }: FlowRequest): boolean {
  if (!(rules.subjects ?? []).some((subject) => subjectMatches(subject, user))) return false;
  if (info.isResourceRequest) return (rules.resourceRules ?? []).some((rule) => resourceRuleMatches(rule, info));
  return (rules.nonResourceRules ?? []).some(
    (rule) => has(rule.verbs, info.verb) && nonResourceURLMatches(rule.nonResourceURLs, info.path),
  );
}

interface RankedSchema {
  readonly schema: KubeObject;
  readonly level: KubeObject;
  readonly rules: readonly PolicyRules[];
  readonly distinguisher: string | undefined;
}

/** The schemas in matching order, each with its level; schemas whose level is missing (dangling) are left out. */
export class FlowClassifier {
  private readonly ranked: readonly RankedSchema[];

  constructor(
    schemas: Iterable<KubeObject>,
    levels: ReadonlyMap<string, KubeObject>,
    private readonly fallback: { readonly schema: KubeObject; readonly level: KubeObject },
  ) {
    const ranked: RankedSchema[] = [];
    for (const schema of schemas) {
      const spec = specOf(schema);
      const level = levels.get(spec.priorityLevelConfiguration?.name ?? '');
      if (level !== undefined)
        ranked.push({ schema, level, rules: spec.rules ?? [], distinguisher: spec.distinguisherMethod?.type });
    }
    ranked.sort((a, b) => precedence(a.schema) - precedence(b.schema) || compareNames(a.schema, b.schema));
    this.ranked = ranked;
  }

  classify(request: FlowRequest): Classification {
    for (const candidate of this.ranked) {
      if (candidate.rules.some((rules) => rulesMatch(rules, request))) {
        return { schema: candidate.schema, level: candidate.level, flowKey: flowKeyOf(candidate, request) };
      }
    }
    return { ...this.fallback, flowKey: `${this.fallback.schema.metadata.name}/${request.user.name}` };
  }
}

function precedence(schema: KubeObject): number {
  return specOf(schema).matchingPrecedence ?? 1000;
}

function compareNames(a: KubeObject, b: KubeObject): number {
  const [x, y] = [String(a.metadata.name), String(b.metadata.name)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function flowKeyOf(candidate: RankedSchema, { user, info }: FlowRequest): string {
  const distinguisher =
    candidate.distinguisher === 'ByUser' ? user.name : candidate.distinguisher === 'ByNamespace' ? info.namespace : '';
  return `${candidate.schema.metadata.name}/${distinguisher}`;
}
