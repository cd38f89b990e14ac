/**
 * flowcontrol.apiserver.k8s.io/v1 rules for FlowSchemas and PriorityLevelConfigurations, with
 * the reference's texts, and its guard on the mandatory objects (`exempt`, `catch-all`): their
 * specs may not differ from the fixed ones (but for the `exempt` level's `spec.exempt`).
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from '../../api/flowcontrol-bootstrap';
import {
  deepEqual,
  duplicate,
  FieldPath,
  forbidden,
  GoValue,
  invalid,
  notSupported,
  required,
} from '../status/field-errors';
import { isDNS1123Label, isDNS1123Subdomain } from './names';

type Fields = Record<string, unknown>;

const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const MAX_QUEUES = 10_000_000;
/** Shuffle sharding hashes a flow into 60 bits; a hand must be dealt from them. */
const MAX_HASH_BITS = 60;
const NAMESPACE_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

function fields(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item : '')) : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

export function validateFlowSchema(object: KubeObject): FieldError[] {
  const name = object.metadata.name ?? '';
  const spec = fields(object.spec) ?? {};
  const at = FieldPath.root('spec');
  const errors: FieldError[] = [];
  const precedence = num(spec.matchingPrecedence);
  if (precedence <= 0) errors.push(invalid(at.child('matchingPrecedence'), precedence, 'must be a positive value'));
  if (precedence > 10000)
    errors.push(invalid(at.child('matchingPrecedence'), precedence, 'must not be greater than 10000'));
  if (precedence === 1 && name !== 'exempt')
    errors.push(
      invalid(
        at.child('matchingPrecedence'),
        precedence,
        "only the schema named 'exempt' may have matchingPrecedence 1",
      ),
    );
  const distinguisher = fields(spec.distinguisherMethod);
  if (distinguisher !== undefined && !DISTINGUISHER_METHODS.includes(str(distinguisher.type))) {
    errors.push(
      notSupported(
        at.child('distinguisherMethod', 'type'),
        new GoValue(JSON.stringify({ Type: str(distinguisher.type) })),
        DISTINGUISHER_METHODS,
      ),
    );
  }
  const level = str(fields(spec.priorityLevelConfiguration)?.name);
  if (level === '')
    errors.push(required(at.child('priorityLevelConfiguration', 'name'), 'must reference a priority level'));
  else
    for (const message of isDNS1123Subdomain(level))
      errors.push(invalid(at.child('priorityLevelConfiguration', 'name'), level, message));
  (Array.isArray(spec.rules) ? spec.rules : []).forEach((rule, i) =>
    errors.push(...validateRule(fields(rule) ?? {}, at.child('rules').index(i))),
  );
  errors.push(...validateConditionTypes(object));
  const mandatory = MANDATORY_FLOW_SCHEMAS.find((schema) => schema.metadata.name === name);
  if (mandatory !== undefined && !deepEqual(mandatory.spec, object.spec)) {
    errors.push(invalid(at, new GoValue(goFlowSchemaSpec(spec)), `spec of '${name}' must equal the fixed value`));
  }
  return errors;
}

function validateRule(rule: Fields, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const subjects = Array.isArray(rule.subjects) ? rule.subjects : [];
  if (subjects.length === 0) errors.push(required(at.child('subjects'), 'subjects must contain at least one value'));
  subjects.forEach((subject, i) =>
    errors.push(...validateSubject(fields(subject) ?? {}, at.child('subjects').index(i))),
  );
  const resourceRules = Array.isArray(rule.resourceRules) ? rule.resourceRules : [];
  const nonResourceRules = Array.isArray(rule.nonResourceRules) ? rule.nonResourceRules : [];
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    errors.push(required(at, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  }
  resourceRules.forEach((resourceRule, i) =>
    errors.push(...validateResourceRule(fields(resourceRule) ?? {}, at.child('resourceRules').index(i))),
  );
  nonResourceRules.forEach((nonResourceRule, i) =>
    errors.push(...validateNonResourceRule(fields(nonResourceRule) ?? {}, at.child('nonResourceRules').index(i))),
  );
  return errors;
}

const OTHER_SUBJECT_MEMBERS: ReadonlyArray<[member: string, kind: string]> = [
  ['user', 'User'],
  ['group', 'Group'],
  ['serviceAccount', 'ServiceAccount'],
];

function validateSubject(subject: Fields, at: FieldPath): FieldError[] {
  const kind = str(subject.kind);
  if (!SUBJECT_KINDS.includes(kind)) return [notSupported(at.child('kind'), kind, SUBJECT_KINDS)];
  const errors: FieldError[] = [];
  const member = OTHER_SUBJECT_MEMBERS.find(([, memberKind]) => memberKind === kind)![0];
  const value = fields(subject[member]);
  if (value === undefined) {
    errors.push(required(at.child(member), `${member} is required when subject kind is '${kind}'`));
  } else if (kind === 'ServiceAccount') {
    errors.push(...validateServiceAccountSubject(value, at.child(member)));
  } else if (str(value.name) === '') {
    errors.push(required(at.child(member, 'name')));
  }
  for (const [other, otherKind] of OTHER_SUBJECT_MEMBERS) {
    if (other !== member && subject[other] !== undefined && subject[other] !== null) {
      errors.push(forbidden(at.child(other), `${other} is forbidden when subject kind is not '${otherKind}'`));
    }
  }
  return errors;
}

function validateServiceAccountSubject(account: Fields, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const name = str(account.name);
  if (name === '') errors.push(required(at.child('name')));
  else if (name !== '*')
    for (const message of isDNS1123Subdomain(name)) errors.push(invalid(at.child('name'), name, message));
  const namespace = str(account.namespace);
  if (namespace === '') errors.push(required(at.child('namespace'), 'must specify namespace for service account'));
  else for (const message of isDNS1123Label(namespace)) errors.push(invalid(at.child('namespace'), namespace, message));
  return errors;
}

/** A list that is '*' alone or names without '*'; `what` names the members in the message. */
function wildcardAlone(values: string[], at: FieldPath, what: string): FieldError[] {
  return values.length > 1 && values.includes('*')
    ? [invalid(at, values, `if '*' is present, must not specify other ${what}`)]
    : [];
}

function validateVerbs(verbs: string[], at: FieldPath): FieldError[] {
  if (verbs.length === 0) return [required(at, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return wildcardAlone(verbs, at, 'verbs');
  return verbs.every((verb) => SUPPORTED_VERBS.includes(verb)) ? [] : [notSupported(at, verbs, SUPPORTED_VERBS)];
}

function validateResourceRule(rule: Fields, at: FieldPath): FieldError[] {
  const errors = validateVerbs(strings(rule.verbs), at.child('verbs'));
  const apiGroups = strings(rule.apiGroups);
  if (apiGroups.length === 0)
    errors.push(required(at.child('apiGroups'), 'resource rules must supply at least one api group'));
  else errors.push(...wildcardAlone(apiGroups, at.child('apiGroups'), 'api groups'));
  const resources = strings(rule.resources);
  if (resources.length === 0)
    errors.push(required(at.child('resources'), 'resource rules must supply at least one resource'));
  else errors.push(...wildcardAlone(resources, at.child('resources'), 'resources'));
  const namespaces = strings(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errors.push(
      required(at.child('namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'),
    );
  } else if (namespaces.includes('*')) {
    errors.push(...wildcardAlone(namespaces, at.child('namespaces'), 'namespaces'));
  } else {
    namespaces.forEach((namespace, i) => {
      for (const message of isDNS1123Label(namespace))
        errors.push(invalid(at.child('namespaces').index(i), namespace, NAMESPACE_INTRO + message));
    });
  }
  return errors;
}

function validateNonResourceRule(rule: Fields, at: FieldPath): FieldError[] {
  const errors = validateVerbs(strings(rule.verbs), at.child('verbs'));
  const urls = strings(rule.nonResourceURLs);
  if (urls.length === 0)
    errors.push(required(at.child('nonResourceURLs'), 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) errors.push(...wildcardAlone(urls, at.child('nonResourceURLs'), 'non-resource URLs'));
  else {
    urls.forEach((url, i) => {
      const problem = nonResourceURLProblem(url);
      if (problem !== undefined) errors.push(invalid(at.child('nonResourceURLs').index(i), url, problem));
    });
  }
  return errors;
}

function nonResourceURLProblem(url: string): string | undefined {
  if (url === '') return 'must not be empty';
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return 'must start with slash';
  if (url.includes(' ')) return 'must not contain white-space';
  if (url.includes('//')) return 'must not contain double slash';
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith('/*'))) return 'wildcard can only do suffix matching';
  return undefined;
}

/** Status conditions need a type, each type once. */
function validateConditionTypes(object: KubeObject): FieldError[] {
  const conditions = Array.isArray(fields(object.status)?.conditions)
    ? (fields(object.status)!.conditions as unknown[])
    : [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  conditions.forEach((condition, i) => {
    const type = str(fields(condition)?.type);
    const at = FieldPath.root('status', 'conditions').index(i).child('type');
    if (type === '') errors.push(required(at));
    else if (seen.has(type)) errors.push(duplicate(at, type));
    seen.add(type);
  });
  return errors;
}

export function validatePriorityLevelConfiguration(object: KubeObject): FieldError[] {
  const name = object.metadata.name ?? '';
  const spec = fields(object.spec) ?? {};
  const at = FieldPath.root('spec');
  const errors: FieldError[] = [];
  const type = str(spec.type);
  if ((name === 'exempt') !== (type === 'Exempt'))
    errors.push(invalid(at.child('type'), type, "must be 'Exempt' if and only if `name` is 'exempt'"));
  const present = (value: unknown) => value !== undefined && value !== null;
  if (type === 'Exempt') {
    if (present(spec.limited)) errors.push(forbidden(at.child('limited'), 'must be nil if the type is not Limited'));
    const exempt = fields(spec.exempt);
    if (exempt !== undefined) errors.push(...validateExempt(exempt, at.child('exempt')));
  } else if (type === 'Limited') {
    if (present(spec.exempt)) errors.push(forbidden(at.child('exempt'), 'must be nil if the type is Limited'));
    const limited = fields(spec.limited);
    if (limited === undefined) errors.push(required(at.child('limited'), 'must not be empty when type is Limited'));
    else errors.push(...validateLimited(limited, at.child('limited')));
  } else {
    errors.push(notSupported(at.child('type'), type, ['Exempt', 'Limited']));
  }
  errors.push(...validateConditionTypes(object));
  const mandatory = MANDATORY_PRIORITY_LEVELS.find((level) => level.metadata.name === name);
  if (mandatory !== undefined) {
    // The administrator may tune the exempt level's own field, nothing else.
    const comparable = (value: Fields) => (name === 'exempt' ? { ...value, exempt: undefined } : value);
    if (!deepEqual(comparable(fields(mandatory.spec) ?? {}), comparable(spec))) {
      const what = name === 'exempt' ? "spec of 'exempt' except the 'spec.exempt' field" : `spec of '${name}'`;
      errors.push(invalid(at, new GoValue(goPriorityLevelSpec(spec)), `${what} must equal the fixed value`));
    }
  }
  return errors;
}

function validateExempt(exempt: Fields, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof exempt.nominalConcurrencyShares === 'number' && exempt.nominalConcurrencyShares < 0) {
    errors.push(
      invalid(at.child('nominalConcurrencyShares'), exempt.nominalConcurrencyShares, 'must be a non-negative integer'),
    );
  }
  errors.push(...validateLendablePercent(exempt, at));
  return errors;
}

function validateLendablePercent(level: Fields, at: FieldPath): FieldError[] {
  const percent = level.lendablePercent;
  return typeof percent === 'number' && (percent < 0 || percent > 100)
    ? [invalid(at.child('lendablePercent'), percent, 'must be between 0 and 100, inclusive')]
    : [];
}

function validateLimited(limited: Fields, at: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const shares = num(limited.nominalConcurrencyShares);
  if (shares < 0) errors.push(invalid(at.child('nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
  errors.push(...validateLimitResponse(fields(limited.limitResponse) ?? {}, at.child('limitResponse')));
  errors.push(...validateLendablePercent(limited, at));
  if (typeof limited.borrowingLimitPercent === 'number' && limited.borrowingLimitPercent < 0) {
    errors.push(
      invalid(
        at.child('borrowingLimitPercent'),
        limited.borrowingLimitPercent,
        'if specified, must be a non-negative integer',
      ),
    );
  }
  return errors;
}

function validateLimitResponse(response: Fields, at: FieldPath): FieldError[] {
  const type = str(response.type);
  const queuing = fields(response.queuing);
  if (type === 'Reject')
    return queuing === undefined
      ? []
      : [forbidden(at.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited')];
  if (type !== 'Queue') return [notSupported(at.child('type'), type, ['Queue', 'Reject'])];
  if (queuing === undefined)
    return [required(at.child('queuing'), 'must not be empty if limited.limitResponse.type is Limited')];
  const errors: FieldError[] = [];
  const queueLengthLimit = num(queuing.queueLengthLimit);
  const queues = num(queuing.queues);
  const handSize = num(queuing.handSize);
  const path = at.child('queuing');
  if (queueLengthLimit <= 0) errors.push(invalid(path.child('queueLengthLimit'), queueLengthLimit, 'must be positive'));
  if (queues <= 0) errors.push(invalid(path.child('queues'), queues, 'must be positive'));
  else if (queues > MAX_QUEUES)
    errors.push(invalid(path.child('queues'), queues, `must not be greater than ${MAX_QUEUES}`));
  if (handSize <= 0) errors.push(invalid(path.child('handSize'), handSize, 'must be positive'));
  else if (handSize > queues)
    errors.push(invalid(path.child('handSize'), handSize, `should not be greater than queues (${queues})`));
  else if (Math.ceil(Math.log2(queues) * handSize) > MAX_HASH_BITS) {
    errors.push(
      invalid(
        path.child('handSize'),
        handSize,
        `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`,
      ),
    );
  }
  return errors;
}

// The mandatory-object errors print the whole spec as the reference's internal Go struct
// marshals: Go field names, every field present, absent pointers as null.

function goStrings(value: unknown): string[] | null {
  return Array.isArray(value) ? strings(value) : null;
}

function goNumberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

function goFlowSchemaSpec(spec: Fields): string {
  const distinguisher = fields(spec.distinguisherMethod);
  const rules = Array.isArray(spec.rules) ? spec.rules.map((rule) => fields(rule) ?? {}) : null;
  const named = (value: unknown) => {
    const found = fields(value);
    return found === undefined ? null : { Name: str(found.name) };
  };
  return JSON.stringify({
    PriorityLevelConfiguration: { Name: str(fields(spec.priorityLevelConfiguration)?.name) },
    MatchingPrecedence: num(spec.matchingPrecedence),
    DistinguisherMethod: distinguisher === undefined ? null : { Type: str(distinguisher.type) },
    Rules:
      rules?.map((rule) => ({
        Subjects: Array.isArray(rule.subjects)
          ? rule.subjects.map((item) => {
              const subject = fields(item) ?? {};
              const account = fields(subject.serviceAccount);
              return {
                Kind: str(subject.kind),
                User: named(subject.user),
                Group: named(subject.group),
                ServiceAccount:
                  account === undefined ? null : { Namespace: str(account.namespace), Name: str(account.name) },
              };
            })
          : null,
        ResourceRules: Array.isArray(rule.resourceRules)
          ? rule.resourceRules.map((item) => {
              const resourceRule = fields(item) ?? {};
              return {
                Verbs: goStrings(resourceRule.verbs),
                APIGroups: goStrings(resourceRule.apiGroups),
                Resources: goStrings(resourceRule.resources),
                ClusterScope: resourceRule.clusterScope === true,
                Namespaces: goStrings(resourceRule.namespaces),
              };
            })
          : null,
        NonResourceRules: Array.isArray(rule.nonResourceRules)
          ? rule.nonResourceRules.map((item) => {
              const nonResourceRule = fields(item) ?? {};
              return {
                Verbs: goStrings(nonResourceRule.verbs),
                NonResourceURLs: goStrings(nonResourceRule.nonResourceURLs),
              };
            })
          : null,
      })) ?? null,
  });
}

function goPriorityLevelSpec(spec: Fields): string {
  const limited = fields(spec.limited);
  const exempt = fields(spec.exempt);
  const response = fields(limited?.limitResponse);
  const queuing = fields(response?.queuing);
  return JSON.stringify({
    Type: str(spec.type),
    Limited:
      limited === undefined
        ? null
        : {
            NominalConcurrencyShares: num(limited.nominalConcurrencyShares),
            LimitResponse: {
              Type: str(response?.type),
              Queuing:
                queuing === undefined
                  ? null
                  : {
                      Queues: num(queuing.queues),
                      HandSize: num(queuing.handSize),
                      QueueLengthLimit: num(queuing.queueLengthLimit),
                    },
            },
            LendablePercent: goNumberOrNull(limited.lendablePercent),
            BorrowingLimitPercent: goNumberOrNull(limited.borrowingLimitPercent),
          },
    Exempt:
      exempt === undefined
        ? null
        : {
            NominalConcurrencyShares: goNumberOrNull(exempt.nominalConcurrencyShares),
            LendablePercent: goNumberOrNull(exempt.lendablePercent),
          },
  });
}
