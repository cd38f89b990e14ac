/**
 * A Job's status writes as a 1.34.4 kube-apiserver judged them: each case is a Job created with
 * the given spec, then merge patches of its status, sent to the reference started with its
 * default gates (JobManagedBy on) and with JobManagedBy=false. The expected answers are what it
 * gave: `ok` or the causes of its 422. A Job written with the gate off and written again after a
 * restart with it on, over the same etcd, gave the answers of the last 'legal statuses' cases.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const jobs = typeOf('batch', 'jobs');
const OFF = { JobManagedBy: false };

const T0 = '2024-01-01T09:00:00Z';
const T1 = '2024-01-01T10:00:00Z';
const T2 = '2024-01-01T11:00:00Z';
const T3 = '2024-01-01T12:00:00Z';
const condition = (type: string, status = 'True') => ({ type, status, lastTransitionTime: T1 });
const [SCM, COMPLETE, FAILURE_TARGET, FAILED] = ['SuccessCriteriaMet', 'Complete', 'FailureTarget', 'Failed'].map(
  (type) => condition(type),
);
const INDEXED = { completionMode: 'Indexed', completions: 5, parallelism: 5, backoffLimitPerIndex: 1 };

function job(spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', namespace: 'default', uid: '4b4c2a52-8c35-4f3c-a3c8-2f5f0e1c6b11' },
    spec: {
      ...spec,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } },
    },
  } as KubeObject;
}

/** A status write: the fields given replace the stored ones, null removes one. */
function patchStatus(patch: Record<string, unknown>) {
  return (next: KubeObject) => {
    const status = (next.status ??= {}) as Record<string, unknown>;
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete status[key];
      else status[key] = value;
    }
  };
}

/** Each write's answer, stopping at the first refusal (the later ones would start from it). */
function answers(
  spec: Record<string, unknown>,
  patches: readonly Record<string, unknown>[],
  gates: Readonly<Record<string, boolean>>,
): (string | readonly string[])[] {
  const made = created(jobs, job(spec), gates);
  expect(made.errors).toEqual([]);
  let stored = made.object;
  const results: (string | readonly string[])[] = [];
  for (const patch of patches) {
    const written = updated(jobs, stored, patchStatus(patch), gates, 'status');
    results.push(written.errors.length === 0 ? 'ok' : written.errors);
    if (written.errors.length > 0) break;
    stored = written.object;
  }
  return results;
}

interface Case {
  readonly spec?: Record<string, unknown>;
  readonly writes: readonly Record<string, unknown>[];
  /** The reference's answer to the last write with JobManagedBy on (every earlier one was ok). */
  readonly refused: readonly string[];
  /** Its answer with JobManagedBy off: ok, or these causes. */
  readonly off?: readonly string[];
}

const CASES: Record<string, Case> = {
  'completionTime without Complete': {
    writes: [{ startTime: T1, completionTime: T2 }],
    refused: [
      'status.completionTime: Invalid value: "2024-01-01T11:00:00Z": cannot set completionTime when there is no Complete=True condition',
    ],
  },
  'Complete and Failed together': {
    writes: [{ startTime: T1, completionTime: T2, conditions: [SCM, COMPLETE, FAILURE_TARGET, FAILED] }],
    refused: [
      'status.conditions: Invalid value: cannot set Complete=True and Failed=true conditions',
      'status.conditions: Invalid value: cannot set Complete=True and FailureTarget=true conditions',
      'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions',
      'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and FailureTarget=true conditions',
    ],
    off: [
      'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions',
      'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and FailureTarget=true conditions',
    ],
  },
  'Complete without completionTime': {
    writes: [{ startTime: T1, conditions: [SCM, COMPLETE] }],
    refused: ['status.completionTime: Required value: completionTime is required for Complete jobs'],
  },
  'completionTime before startTime': {
    writes: [{ startTime: T2, completionTime: T1, conditions: [SCM, COMPLETE] }],
    refused: ['status.completionTime: Invalid value: "2024-01-01T10:00:00Z": must be equal to or after `startTime`'],
  },
  'Failed without FailureTarget': {
    writes: [{ startTime: T1, conditions: [FAILED] }],
    refused: [
      'status.conditions: Invalid value: cannot set Failed=True condition without the FailureTarget=true condition',
    ],
  },
  'Complete without SuccessCriteriaMet': {
    writes: [{ startTime: T1, completionTime: T2, conditions: [COMPLETE] }],
    refused: [
      'status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition',
    ],
  },
  'a finished Job with active pods': {
    writes: [{ startTime: T1, active: 1, conditions: [FAILURE_TARGET, FAILED] }],
    refused: ['status.active: Invalid value: 1: active>0 is invalid for finished job'],
  },
  'a finished Job without startTime': {
    writes: [{ conditions: [FAILURE_TARGET, FAILED] }],
    refused: ['status.startTime: Required value: startTime is required for finished job'],
  },
  'a finished Job with uncounted pods': {
    writes: [{ startTime: T1, uncountedTerminatedPods: { succeeded: ['a'] }, conditions: [FAILURE_TARGET, FAILED] }],
    refused: [
      'status.uncountedTerminatedPods: Invalid value: {"Succeeded":["a"],"Failed":null}: must be empty for finished job',
    ],
  },
  'a finished Job with terminating pods': {
    writes: [{ startTime: T1, terminating: 2, conditions: [FAILURE_TARGET, FAILED] }],
    refused: ['status.terminating: Invalid value: 2: terminating>0 is invalid for finished job'],
  },
  'more ready pods than active': {
    writes: [{ startTime: T1, active: 1, ready: 2 }],
    refused: ['status.ready: Invalid value: 2: cannot set more ready pods than active'],
  },
  'negative counts': {
    writes: [{ active: -1, succeeded: -1, failed: -1, ready: -1, terminating: -1 }],
    refused: [
      'status.active: Invalid value: -1: must be greater than or equal to 0',
      'status.succeeded: Invalid value: -1: must be greater than or equal to 0',
      'status.failed: Invalid value: -1: must be greater than or equal to 0',
      'status.ready: Invalid value: -1: must be greater than or equal to 0',
      'status.terminating: Invalid value: -1: must be greater than or equal to 0',
      'status.failed: Invalid value: -1: cannot decrease the failed counter',
      'status.succeeded: Invalid value: -1: cannot decrease the succeeded counter',
    ],
    off: [
      'status.active: Invalid value: -1: must be greater than or equal to 0',
      'status.succeeded: Invalid value: -1: must be greater than or equal to 0',
      'status.failed: Invalid value: -1: must be greater than or equal to 0',
      'status.ready: Invalid value: -1: must be greater than or equal to 0',
      'status.terminating: Invalid value: -1: must be greater than or equal to 0',
    ],
  },
  'uncounted pods empty or named twice': {
    writes: [{ uncountedTerminatedPods: { succeeded: ['a', '', 'a'], failed: ['a', 'b'] } }],
    refused: [
      'status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty',
      'status.uncountedTerminatedPods.succeeded[2]: Duplicate value: "a"',
      'status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"',
    ],
    off: [
      'status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty',
      'status.uncountedTerminatedPods.succeeded[2]: Duplicate value: "a"',
      'status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"',
    ],
  },
  'completedIndexes of a NonIndexed Job': {
    writes: [{ completedIndexes: '0' }],
    refused: [
      'status.completedIndexes: Invalid value: "0": cannot set non-empty completedIndexes when non-indexed completion mode',
    ],
  },
  'failedIndexes without backoffLimitPerIndex': {
    writes: [{ failedIndexes: '0' }],
    refused: [
      'status.failedIndexes: Invalid value: "0": cannot set non-null failedIndexes when backoffLimitPerIndex is null',
    ],
  },
  ...Object.fromEntries(
    [
      ['0,7', 'too large index: "7"'],
      ['1-3,2', 'non-increasing order, previous: 3, current: 2'],
      ['a', 'cannot convert string to integer for index: "a"'],
      ['3-1', 'non-increasing order, previous: 3, current: 1'],
      [
        '1-2-3',
        `the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by '-'`,
      ],
      ['2,1', 'non-increasing order, previous: 2, current: 1'],
    ].map(([indexes, problem]): [string, Case] => [
      `completedIndexes ${indexes}`,
      {
        spec: INDEXED,
        writes: [{ completedIndexes: indexes }],
        refused: [
          `status.completedIndexes: Invalid value: ${JSON.stringify(indexes)}: error parsing completedIndexes: ${problem}`,
        ],
      },
    ]),
  ),
  'failedIndexes beyond completions': {
    spec: INDEXED,
    writes: [{ failedIndexes: '9' }],
    refused: ['status.failedIndexes: Invalid value: "9": error parsing failedIndexes: too large index: "9"'],
  },
  'failedIndexes overlapping completedIndexes': {
    spec: INDEXED,
    writes: [{ completedIndexes: '1-3', failedIndexes: '0,2' }],
    refused: ['status.failedIndexes: Invalid value: "0,2": failedIndexes and completedIndexes overlap at index: 2'],
  },
  'counters going down': {
    writes: [
      { succeeded: 2, failed: 2 },
      { succeeded: 1, failed: 1 },
    ],
    refused: [
      'status.failed: Invalid value: 1: cannot decrease the failed counter',
      'status.succeeded: Invalid value: 1: cannot decrease the succeeded counter',
    ],
  },
  'a terminal condition taken back': {
    writes: [{ startTime: T1, conditions: [FAILURE_TARGET, FAILED] }, { conditions: null }],
    refused: [
      'status.conditions: Invalid value: cannot disable the terminal Failed=True condition',
      'status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition',
    ],
  },
  'completionTime changed': {
    writes: [{ startTime: T1, completionTime: T2, conditions: [SCM, COMPLETE] }, { completionTime: T3 }],
    refused: ['status.completionTime: Invalid value: "2024-01-01T12:00:00Z": field is immutable'],
  },
  'startTime changed': {
    writes: [{ startTime: T1 }, { startTime: T0 }],
    refused: ['status.startTime: Required value: startTime cannot be removed for unsuspended job'],
  },
  'startTime removed': {
    writes: [{ startTime: T1 }, { startTime: null }],
    refused: ['status.startTime: Required value: startTime cannot be removed for unsuspended job'],
  },
  'startTime changed while Suspended stays True': {
    writes: [{ startTime: T1, conditions: [condition('Suspended')] }, { startTime: T2 }],
    refused: ['status.startTime: Required value: startTime cannot be removed for unsuspended job'],
  },
  'SuccessCriteriaMet with Failed': {
    writes: [{ startTime: T1, conditions: [SCM, FAILURE_TARGET, FAILED] }],
    refused: [
      'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions',
      'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and FailureTarget=true conditions',
    ],
    off: [
      'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions',
      'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and FailureTarget=true conditions',
    ],
  },
  'SuccessCriteriaMet taken back': {
    writes: [{ conditions: [SCM] }, { conditions: [condition('SuccessCriteriaMet', 'False')] }],
    refused: ['status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition'],
    off: ['status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition'],
  },
  'Complete under a success policy without SuccessCriteriaMet': {
    spec: {
      completionMode: 'Indexed',
      completions: 5,
      parallelism: 5,
      successPolicy: { rules: [{ succeededCount: 1 }] },
    },
    writes: [{ startTime: T1, completionTime: T2, conditions: [COMPLETE] }],
    refused: [
      'status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition',
      'status.conditions: Invalid value: cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True',
    ],
    off: [
      'status.conditions: Invalid value: cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True',
    ],
  },
};

describe('JobManagedBy on (the default): the status transitions are checked', () => {
  test.each(Object.entries(CASES))('%s', (_name, { spec = {}, writes, refused }) => {
    expect(answers(spec, writes, {})).toEqual([...writes.slice(1).map(() => 'ok'), refused]);
  });
});

describe('JobManagedBy off: only the rules that hold whatever the gate', () => {
  test.each(Object.entries(CASES))('%s', (_name, { spec = {}, writes, off }) => {
    expect(answers(spec, writes, OFF)).toEqual([...writes.slice(1).map(() => 'ok'), off ?? 'ok']);
  });

  test('SuccessCriteriaMet added to a Job already Complete without it', () => {
    const writes = [{ startTime: T1, completionTime: T2, conditions: [COMPLETE] }, { conditions: [COMPLETE, SCM] }];
    expect(answers({}, writes, OFF)).toEqual([
      'ok',
      [
        'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions',
      ],
    ]);
  });
});

describe('legal statuses', () => {
  test.each([
    ['on', {}],
    ['off', OFF],
  ])('JobManagedBy %s: a Job run to Complete, and one run to Failed', (_gate, gates) => {
    const toComplete = [
      { startTime: T1, active: 1, ready: 1, terminating: 0 },
      { active: 0, ready: 0, uncountedTerminatedPods: { succeeded: ['u1'] } },
      { succeeded: 1, uncountedTerminatedPods: {} },
      { completionTime: T2, conditions: [SCM, COMPLETE] },
    ];
    expect(answers({}, toComplete, gates)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const toFailed = [
      { startTime: T1, active: 1 },
      { active: 0, failed: 1, conditions: [FAILURE_TARGET] },
      { conditions: [FAILURE_TARGET, FAILED] },
    ];
    expect(answers({}, toFailed, gates)).toEqual(['ok', 'ok', 'ok']);
  });

  test('an Indexed Job scaled in tandem may count fewer successes', () => {
    const spec = { completionMode: 'Indexed', completions: 5, parallelism: 5 };
    const writes = [
      { succeeded: 2, completedIndexes: '0-1' },
      { succeeded: 1, completedIndexes: '0' },
    ];
    expect(answers(spec, writes, {})).toEqual(['ok', 'ok']);
  });

  test('a resumed Job (Suspended turned False) takes a new start time', () => {
    const writes = [
      { startTime: T1, conditions: [condition('Suspended')] },
      { startTime: T2, conditions: [condition('Suspended', 'False')] },
    ];
    expect(answers({}, writes, {})).toEqual(['ok', 'ok']);
  });

  test('a suspended Job may lose its start time', () => {
    expect(answers({ suspend: true }, [{ startTime: T1 }, { startTime: null }], {})).toEqual(['ok', 'ok']);
  });

  test('a suspended Job of no completions finishes without a start time', () => {
    const writes = [{ conditions: [SCM, COMPLETE], completionTime: T2 }];
    expect(answers({ suspend: true, completions: 0 }, writes, {})).toEqual(['ok']);
  });

  test('a Job already breaking a rule keeps taking writes of other fields', () => {
    const made = created(jobs, job({}), OFF).object;
    const broken = updated(jobs, made, patchStatus({ startTime: T1, completionTime: T2 }), OFF, 'status').object;
    expect(updated(jobs, broken, patchStatus({ active: 1 }), {}, 'status').errors).toEqual([]);
    expect(updated(jobs, broken, patchStatus({ completionTime: T3 }), {}, 'status').errors).toEqual([
      'status.completionTime: Invalid value: "2024-01-01T12:00:00Z": cannot set completionTime when there is no Complete=True condition',
      'status.completionTime: Invalid value: "2024-01-01T12:00:00Z": field is immutable',
    ]);
  });

  test('an update of the Job itself is not judged by status transitions', () => {
    const made = created(jobs, job({}), OFF).object;
    const broken = updated(jobs, made, patchStatus({ startTime: T1, completionTime: T2 }), OFF, 'status').object;
    const relabelled = updated(jobs, broken, (next) => (next.metadata.labels = { a: 'b' }), {});
    expect(relabelled.errors).toEqual([]);
  });
});
