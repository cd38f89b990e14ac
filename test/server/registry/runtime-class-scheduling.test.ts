/**
 * A RuntimeClass's scheduling, as kube-apiserver 1.34.4 checked it (its answers written beside
 * each case): the node selector as labels, the tolerations as a pod's (their own rules reported
 * a level deeper, at `scheduling.tolerations.tolerations[i]`), and no toleration twice but for
 * its tolerationSeconds (named as the reference's internal struct).
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

const runtimeClasses = typeOf('node.k8s.io', 'runtimeclasses');
const runtimeClass = (scheduling: object) =>
  ({
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: { name: 'rc' },
    handler: 'h',
    scheduling,
  }) as KubeObject;
const TOLERATIONS = 'scheduling.tolerations.tolerations';

test.each([
  [
    'a node selector with a bad key and a bad value',
    runtimeClass({ nodeSelector: { 'bad key': 'v', ok: '-bad-' } }),
    [
      `scheduling.nodeSelector: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `scheduling.nodeSelector: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ],
  ],
  [
    'tolerations breaking each rule',
    runtimeClass({
      tolerations: [
        { key: 'a', operator: 'Near' },
        { operator: 'Equal', value: 'x' },
        { key: 'b', operator: 'Exists', value: 'v', effect: 'Sometimes' },
        { key: 'c', operator: 'Exists', tolerationSeconds: 5 },
      ],
    }),
    [
      `${TOLERATIONS}[0].operator: Unsupported value: "Near": supported values: "Equal", "Exists"`,
      `${TOLERATIONS}[1].operator: Invalid value: "Equal": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
      `${TOLERATIONS}[2].operator: Invalid value: "v": value must be empty when \`operator\` is 'Exists'`,
      `${TOLERATIONS}[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
      `${TOLERATIONS}[3].effect: Invalid value: "": effect must be 'NoExecute' when \`tolerationSeconds\` is set`,
    ],
  ],
  [
    'a toleration twice but for its seconds',
    runtimeClass({
      tolerations: [
        { key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
        { key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
        { key: 'a', operator: 'Exists' },
      ],
    }),
    [
      'scheduling.tolerations[1]: Duplicate value: {"Key":"a","Operator":"Exists","Value":"","Effect":"NoExecute","TolerationSeconds":10}',
    ],
  ],
  ['valid scheduling', runtimeClass({ nodeSelector: { a: 'b' }, tolerations: [{ key: 'a', operator: 'Exists' }] }), []],
])('%s', (_name, object, errors) => {
  expect(created(runtimeClasses, object, {}).errors).toEqual(errors);
});
