/** FlowSchema and PriorityLevelConfiguration rules, with the texts a 1.34 server answered for the same objects. */
import type { KubeObject } from '../../../api/objects';
import { validateFlowSchema, validatePriorityLevelConfiguration } from '../../../server/validation/flowcontrol';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../../../api/flowcontrol-bootstrap';

const texts = (errors: { field: string; detail: string }[]) => errors.map(({ field, detail }) => `${field}: ${detail}`);
const object = (kind: string, name: string, spec: unknown): KubeObject => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind,
  metadata: { name },
  spec,
});

describe('flowcontrol validation', () => {
  it('accepts every bootstrap object', () => {
    for (const level of [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS])
      expect(validatePriorityLevelConfiguration(level)).toEqual([]);
    for (const schema of [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS])
      expect(validateFlowSchema(schema)).toEqual([]);
  });

  it.each([
    [
      {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 0,
          lendablePercent: 101,
          borrowingLimitPercent: -1,
          limitResponse: { type: 'Queue', queuing: { queues: -1, handSize: 8, queueLengthLimit: -2 } },
        },
      },
      [
        'spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -2: must be positive',
        'spec.limited.limitResponse.queuing.queues: Invalid value: -1: must be positive',
        'spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (-1)',
        'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
        'spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer',
      ],
    ],
    [
      {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 30,
          limitResponse: { type: 'Queue', queuing: { queues: 1000000, handSize: 10, queueLengthLimit: 50 } },
        },
      },
      [
        'spec.limited.limitResponse.queuing.handSize: Invalid value: 10: required entropy bits of deckSize 1000000 and handSize 10 should not be greater than 60',
      ],
    ],
    [
      { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: { queues: 1 } } } },
      ['spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited'],
    ],
    [
      { type: 'Limited', exempt: {} },
      [
        'spec.exempt: Forbidden: must be nil if the type is Limited',
        'spec.limited: Required value: must not be empty when type is Limited',
      ],
    ],
    [{ type: 'Exempt' }, ["spec.type: Invalid value: \"Exempt\": must be 'Exempt' if and only if `name` is 'exempt'"]],
    [{}, ['spec.type: Unsupported value: "": supported values: "Exempt", "Limited"']],
  ])('priority level %j', (spec, expected) => {
    expect(texts(validatePriorityLevelConfiguration(object('PriorityLevelConfiguration', 'p', spec)))).toEqual(
      expected,
    );
  });

  it("keeps the mandatory levels fixed but for the exempt level's own field, printing the spec as the reference does", () => {
    const catchAll = structuredClone(MANDATORY_PRIORITY_LEVELS[1]);
    (catchAll.spec as { limited: { nominalConcurrencyShares: number } }).limited.nominalConcurrencyShares = 6;
    expect(texts(validatePriorityLevelConfiguration(catchAll))).toEqual([
      'spec: Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":6,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":null}: spec of \'catch-all\' must equal the fixed value',
    ]);
    const exempt = structuredClone(MANDATORY_PRIORITY_LEVELS[0]);
    (exempt.spec as { exempt: { nominalConcurrencyShares: number } }).exempt.nominalConcurrencyShares = 6;
    expect(validatePriorityLevelConfiguration(exempt)).toEqual([]);
  });

  it('checks flow schemas with the reference texts', () => {
    const spec = {
      matchingPrecedence: -1,
      priorityLevelConfiguration: { name: 'A_b' },
      rules: [
        {
          subjects: [
            { kind: 'ServiceAccount' },
            { kind: 'User', user: {}, group: { name: 'x' } },
            { kind: 'Bad' },
            { kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: '' } },
          ],
          resourceRules: [{ verbs: ['*', 'get'], apiGroups: [], resources: ['*'], namespaces: ['A_b'] }],
          nonResourceRules: [{ verbs: ['frob'], nonResourceURLs: ['x', '/a*', '/a/*', '/'] }],
        },
      ],
    };
    expect(texts(validateFlowSchema(object('FlowSchema', 'f', spec)))).toEqual([
      'spec.matchingPrecedence: Invalid value: -1: must be a positive value',
      expect.stringMatching(
        /^spec\.priorityLevelConfiguration\.name: Invalid value: "A_b": a lowercase RFC 1123 subdomain must consist of/,
      ),
      "spec.rules[0].subjects[0].serviceAccount: Required value: serviceAccount is required when subject kind is 'ServiceAccount'",
      'spec.rules[0].subjects[1].user.name: Required value',
      "spec.rules[0].subjects[1].group: Forbidden: group is forbidden when subject kind is not 'Group'",
      'spec.rules[0].subjects[2].kind: Unsupported value: "Bad": supported values: "Group", "ServiceAccount", "User"',
      'spec.rules[0].subjects[3].serviceAccount.namespace: Required value: must specify namespace for service account',
      'spec.rules[0].resourceRules[0].verbs: Invalid value: ["*","get"]: if \'*\' is present, must not specify other verbs',
      'spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group',
      expect.stringMatching(
        /^spec\.rules\[0\]\.resourceRules\[0\]\.namespaces\[0\]: Invalid value: "A_b": each member of this list must be '\*' or a DNS-1123 label; a lowercase RFC 1123 label/,
      ),
      'spec.rules[0].nonResourceRules[0].verbs: Unsupported value: ["frob"]: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "x": must start with slash',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a*": wildcard can only do suffix matching',
    ]);
    expect(
      texts(
        validateFlowSchema(
          object('FlowSchema', 'f', {
            matchingPrecedence: 1,
            priorityLevelConfiguration: {},
            distinguisherMethod: { type: 'X' },
            rules: [{}],
          }),
        ),
      ),
    ).toEqual([
      "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
      'spec.distinguisherMethod.type: Unsupported value: {"Type":"X"}: supported values: "ByNamespace", "ByUser"',
      'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
      'spec.rules[0].subjects: Required value: subjects must contain at least one value',
      'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
    ]);
  });

  it('keeps the mandatory flow schemas fixed', () => {
    const exempt = structuredClone(MANDATORY_FLOW_SCHEMAS[0]);
    (exempt.spec as { matchingPrecedence: number }).matchingPrecedence = 3;
    expect(texts(validateFlowSchema(exempt))).toEqual([
      'spec: Invalid value: {"PriorityLevelConfiguration":{"Name":"exempt"},"MatchingPrecedence":3,"DistinguisherMethod":null,"Rules":[{"Subjects":[{"Kind":"Group","User":null,"Group":{"Name":"system:masters"},"ServiceAccount":null}],"ResourceRules":[{"Verbs":["*"],"APIGroups":["*"],"Resources":["*"],"ClusterScope":true,"Namespaces":["*"]}],"NonResourceRules":[{"Verbs":["*"],"NonResourceURLs":["*"]}]}]}: spec of \'exempt\' must equal the fixed value',
    ]);
  });
});
