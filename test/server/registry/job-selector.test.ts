/**
 * A Job's selector as kube-apiserver 1.34.4 checks it, after the rest of the spec: values of
 * expressions included (spared on update when the stored selector has invalid ones), and the
 * template's labels matched only when the selector parses; none at all matches nothing. A
 * CronJob's job template may hold no selector. An update checks the spec twice, each cause
 * twice. Each answer is the reference's to the same object; the stored Job was written through
 * a capstan beside it on one etcd.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

type LabelSelector = { matchLabels?: Record<string, string> };

const jobs = typeOf('batch', 'jobs');
const cronJobs = typeOf('batch', 'cronjobs');
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const RFC_1123 =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const CONTAINER_NAME = `spec.template.spec.containers[0].name: Invalid value: "C": ${RFC_1123}`;
const NO_MATCH = 'spec.template.metadata.labels: Invalid value: {"a":"b"}: `selector` does not match template `labels`';

const BAD_VALUE = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['b', '-bad-'] }] };
const BAD_OPERATOR = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'Foo', values: ['b'] }] };
const TEMPLATE = {
  metadata: { labels: { a: 'b' } },
  spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] },
};
const BAD_TEMPLATE = { ...TEMPLATE, spec: { ...TEMPLATE.spec, containers: [{ name: 'C', image: 'i' }] } };

const job = (spec: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'x', namespace: 'default' },
    spec: { manualSelector: true, ...spec },
  }) as KubeObject;
const errorsOf = (spec: Record<string, unknown>) => created(jobs, job(spec), {}).errors;

test('an invalid value: the template first, then the selector', () => {
  expect(errorsOf({ selector: BAD_VALUE, template: BAD_TEMPLATE })).toEqual([
    CONTAINER_NAME,
    `spec.selector.matchExpressions[0].values[1]: Invalid value: "-bad-": ${LABEL_VALUE}`,
  ]);
});

test('a selector that does not parse is not matched against the labels', () => {
  expect(errorsOf({ selector: BAD_OPERATOR, template: BAD_TEMPLATE })).toEqual([
    CONTAINER_NAME,
    'spec.selector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator',
  ]);
});

test('no selector matches no template', () => {
  expect(errorsOf({ template: BAD_TEMPLATE })).toEqual([CONTAINER_NAME, 'spec.selector: Required value', NO_MATCH]);
});

test('the labels print as JSON', () => {
  expect(errorsOf({ selector: { matchLabels: { a: 'z' } }, template: TEMPLATE })).toEqual([NO_MATCH]);
});

test('a stored Job keeps its invalid value through an update', () => {
  const stored = created(jobs, job({ selector: BAD_VALUE, template: TEMPLATE }), {}).object;
  expect(updated(jobs, stored, (next) => (next.metadata.labels = { x: 'y' }), {}).errors).toEqual([]);
});

test("a CronJob's job template holds no selector", () => {
  const cronJob = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'x', namespace: 'default' },
    spec: { schedule: '* * * * *', jobTemplate: { spec: { selector: BAD_VALUE, template: BAD_TEMPLATE } } },
  } as KubeObject;
  expect(created(cronJobs, cronJob, {}).errors).toEqual([
    `spec.jobTemplate.${CONTAINER_NAME}`,
    'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"},"matchExpressions":[{"key":"a","operator":"In","values":["b","-bad-"]}]}: `selector` will be auto-generated',
  ]);
});

test('an update checks the spec twice, as the reference does', () => {
  const stored = created(jobs, job({ selector: { matchLabels: { a: 'b' } }, template: TEMPLATE }), {}).object;
  const { errors } = updated(
    jobs,
    stored,
    (next) => ((next.spec as Record<string, unknown>).template = BAD_TEMPLATE),
    {},
  );
  expect(errors.slice(0, 2)).toEqual([CONTAINER_NAME, CONTAINER_NAME]);
  // The reference prints the template in its internal form, which capstan does not copy.
  expect(errors.slice(2).map((error) => error.replace(/Invalid value: .*:/, 'Invalid value: …:'))).toEqual([
    'spec.template: Invalid value: …: field is immutable',
  ]);
});

describe('a selector the server generates (manualSelector unset or false)', () => {
  const LABELS = { metadata: { labels: { a: 'b' } } };
  const autoJob = (name: string, spec: Record<string, unknown>): KubeObject =>
    ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: 'default' },
      spec: { template: TEMPLATE, ...spec },
    }) as KubeObject;
  /** The causes, with the Job's generated uid shown as <uid> (the reference's answers were recorded so). */
  const causesOf = (name: string, spec: Record<string, unknown>) => {
    const { object, errors } = created(jobs, autoJob(name, spec), {});
    return errors.map((error) => error.split(object.metadata.uid!).join('<uid>'));
  };
  const generated = (name: string, spec: Record<string, unknown>) => {
    const { object, errors } = created(jobs, autoJob(name, spec), {});
    const { selector, template } = object.spec as { selector: unknown; template: { metadata: unknown } };
    return JSON.parse(
      JSON.stringify({ errors, selector, template: template.metadata }).split(object.metadata.uid!).join('<uid>'),
    );
  };
  const UID_LABELS = (name: string) => ({
    'batch.kubernetes.io/controller-uid': '<uid>',
    'batch.kubernetes.io/job-name': name,
    'controller-uid': '<uid>',
    'job-name': name,
  });

  test.each([undefined, false])('a selector given is kept, and refused (manualSelector %s)', (manualSelector) => {
    expect(causesOf('j1', { manualSelector, selector: { matchLabels: { a: 'b' } } })).toEqual([
      'spec.selector: Invalid value: {"matchLabels":{"a":"b","batch.kubernetes.io/controller-uid":"<uid>"}}: `selector` not auto-generated',
    ]);
  });

  test('one of expressions alike, before the rest of the spec', () => {
    expect(causesOf('j9', { selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] } })).toEqual([
      'spec.selector: Invalid value: {"matchLabels":{"batch.kubernetes.io/controller-uid":"<uid>"},"matchExpressions":[{"key":"a","operator":"Exists"}]}: `selector` not auto-generated',
    ]);
    expect(causesOf('j10', { selector: { matchLabels: { a: 'b' } }, template: BAD_TEMPLATE })).toEqual([
      'spec.selector: Invalid value: {"matchLabels":{"a":"b","batch.kubernetes.io/controller-uid":"<uid>"}}: `selector` not auto-generated',
      CONTAINER_NAME,
    ]);
  });

  test("a selector of another uid is refused, and then matches not the template's labels", () => {
    expect(causesOf('j8', { selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'wrong' } } })).toEqual([
      'spec.selector: Invalid value: {"matchLabels":{"batch.kubernetes.io/controller-uid":"wrong"}}: `selector` not auto-generated',
      `spec.template.metadata.labels: Invalid value: ${JSON.stringify({ a: 'b', ...UID_LABELS('j8') })}: \`selector\` does not match template \`labels\``,
    ]);
  });

  test('template labels of another uid or name are kept, and refused', () => {
    const uidLabels = { 'batch.kubernetes.io/controller-uid': 'wrong', 'controller-uid': 'wrong' };
    const shownUid = JSON.stringify({ ...UID_LABELS('j5'), ...uidLabels });
    expect(causesOf('j5', { template: { ...TEMPLATE, metadata: { labels: uidLabels } } })).toEqual([
      `spec.template.metadata.labels[controller-uid]: Invalid value: ${shownUid}: must be '<uid>'`,
      `spec.template.metadata.labels[batch.kubernetes.io/controller-uid]: Invalid value: ${shownUid}: must be '<uid>'`,
      `spec.template.metadata.labels: Invalid value: ${shownUid}: \`selector\` does not match template \`labels\``,
    ]);
    const nameLabels = { 'job-name': 'other', 'batch.kubernetes.io/job-name': 'other' };
    const shownName = JSON.stringify({ ...UID_LABELS('j6'), ...nameLabels });
    expect(causesOf('j6', { template: { ...TEMPLATE, metadata: { labels: nameLabels } } })).toEqual([
      `spec.template.metadata.labels[job-name]: Invalid value: ${shownName}: must be 'j6'`,
      `spec.template.metadata.labels[batch.kubernetes.io/job-name]: Invalid value: ${shownName}: must be 'j6'`,
    ]);
  });

  test('none, or an empty one, is generated: the uid selected, the labels added', () => {
    for (const spec of [{ template: { ...TEMPLATE, ...LABELS } }, { selector: {} }])
      expect(generated('j7', spec)).toEqual({
        errors: [],
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': '<uid>' } },
        template: { labels: { a: 'b', ...UID_LABELS('j7') } },
      });
  });

  test('an update is held to the labels and the selector generated at creation, once', () => {
    const stored = created(jobs, autoJob('u1', {}), {}).object;
    const uid = stored.metadata.uid!;
    const { errors } = updated(
      jobs,
      stored,
      (next) => {
        const spec = next.spec as {
          selector: LabelSelector;
          template: { metadata: { labels: Record<string, string> } };
        };
        delete spec.template.metadata.labels['job-name'];
        spec.selector.matchLabels!.a = 'b';
      },
      {},
    );
    const selector = `{"matchLabels":{"a":"b","batch.kubernetes.io/controller-uid":"${uid}"}}`;
    // The reference prints the template in its internal form, which capstan does not copy.
    expect(
      errors.map((error) => error.replace(/^(spec\.template): Invalid value: .*:/, '$1: Invalid value: …:')),
    ).toEqual([
      "spec.template.metadata.labels[job-name]: Required value: must be 'u1'",
      `spec.selector: Invalid value: ${selector}: \`selector\` not auto-generated`,
      `spec.selector: Invalid value: ${selector}: field is immutable`,
      'spec.template: Invalid value: …: field is immutable',
    ]);
  });

  test('with manualSelector the selector and labels are the client’s', () => {
    const { object, errors } = created(
      jobs,
      autoJob('j3', { manualSelector: true, selector: { matchLabels: { a: 'b' } } }),
      {},
    );
    expect(errors).toEqual([]);
    expect((object.spec as { selector: unknown }).selector).toEqual({ matchLabels: { a: 'b' } });
    expect((object.spec as { template: { metadata: unknown } }).template.metadata).toEqual({ labels: { a: 'b' } });
  });
});

describe("a CronJob's job template", () => {
  const cronJob = (name: string, jobSpec: Record<string, unknown>, spec: Record<string, unknown> = {}) =>
    ({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name, namespace: 'default' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: TEMPLATE, ...jobSpec } }, ...spec },
    }) as KubeObject;
  const errorsOfCronJob = (name: string, jobSpec: Record<string, unknown>, spec?: Record<string, unknown>) =>
    created(cronJobs, cronJob(name, jobSpec, spec), {}).errors;
  const WILL_BE_GENERATED =
    'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated';
  const MANUAL = 'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"';

  test('takes no manualSelector, and no selector with it or without', () => {
    expect(errorsOfCronJob('c1', { manualSelector: true })).toEqual([MANUAL]);
    expect(errorsOfCronJob('c2', { manualSelector: true, selector: { matchLabels: { a: 'b' } } })).toEqual([
      WILL_BE_GENERATED,
      MANUAL,
    ]);
    expect(errorsOfCronJob('c3', { manualSelector: false, selector: { matchLabels: { a: 'b' } } })).toEqual([
      WILL_BE_GENERATED,
    ]);
    expect(errorsOfCronJob('c4', { manualSelector: false })).toEqual([]);
  });

  test("every cause in the reference's order: the spec's fields, the template's, the limits, the name", () => {
    const name = 'c'.repeat(53);
    const jobSpec = { manualSelector: true, selector: { matchLabels: { a: 'b' } }, backoffLimit: -1 };
    const spec = {
      schedule: 'bad',
      startingDeadlineSeconds: -1,
      concurrencyPolicy: 'Bad',
      successfulJobsHistoryLimit: -1,
      failedJobsHistoryLimit: -1,
    };
    expect(errorsOfCronJob(name, jobSpec, spec)).toEqual([
      'spec.schedule: Invalid value: "bad": expected exactly 5 fields, found 1: [bad]',
      'spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
      'spec.concurrencyPolicy: Unsupported value: "Bad": supported values: "Allow", "Forbid", "Replace"',
      'spec.jobTemplate.spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0',
      WILL_BE_GENERATED,
      MANUAL,
      'spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
      'spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
      `metadata.name: Invalid value: "${name}": must be no more than 52 characters`,
    ]);
  });
});
