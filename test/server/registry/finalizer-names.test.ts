/**
 * Finalizer names on create and on update, as kube-apiserver 1.34.4 answered them
 * (fixtures/finalizer-names.json, dry-run writes of a ConfigMap, a Namespace, a Deployment and
 * a custom resource): every name must be qualified, and the built-in kinds also refuse a
 * non-standard name without a domain, at `metadata.finalizers[i]`. An update repeats these
 * causes as often as the kind's update validation checks the metadata (twice for ConfigMaps and
 * Namespaces); a Namespace's spec.finalizers, written through /finalize, are checked once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import type { ResourceType } from '../../../server/registry/types';
import { fieldErrorText } from '../../../server/status/field-error';
import { writeContextWith } from '../../helpers/write-context';
import { widgetCRD } from '../apiextensions/fixtures';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Answer {
  readonly target: string;
  readonly verb: 'create' | 'update' | 'finalize';
  readonly finalizers: string;
  readonly sent: readonly string[];
  readonly code: number;
  readonly causes?: readonly string[];
}

const ANSWERS: readonly Answer[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'finalizer-names.json'), 'utf8'),
);

const container = { name: 'c', image: 'busybox' };
const TARGETS: Readonly<Record<string, { readonly type: ResourceType; readonly object: KubeObject }>> = {
  configmap: {
    type: typeOf('', 'configmaps'),
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } },
  },
  namespace: {
    type: typeOf('', 'namespaces'),
    object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } },
  },
  deployment: {
    type: typeOf('apps', 'deployments'),
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'default' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container] } },
      },
    },
  },
  widget: {
    type: customResourceType(widgetCRD()),
    object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } },
  },
};

/** Causes as the fixtures keep them: `<field>: <message>`. */
function causesOf(answer: Answer): readonly string[] {
  const target = TARGETS[answer.target === 'namespace spec' ? 'namespace' : answer.target];
  const withFinalizers = (object: KubeObject) => void (object.metadata.finalizers = [...answer.sent]);
  if (answer.verb === 'create') {
    const object = structuredClone(target.object);
    withFinalizers(object);
    return created(target.type, object, {}).errors;
  }
  const { object: stored } = created(target.type, target.object, {});
  if (answer.verb === 'update') return updated(target.type, stored, withFinalizers, {}).errors;
  const next = { ...structuredClone(stored), spec: { finalizers: [...answer.sent] } };
  return (target.type.strategy.validateFinalizeUpdate?.(next, stored, writeContextWith({})) ?? []).map(fieldErrorText);
}

test.each(ANSWERS.map((a) => [`${a.target} ${a.verb} ${a.finalizers}`, a] as const))('%s', (_name, answer) => {
  expect(causesOf(answer)).toEqual(answer.code < 400 ? [] : answer.causes);
});
