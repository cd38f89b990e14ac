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
