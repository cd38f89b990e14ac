/**
 * `pods/binding` and the legacy `bindings` collection: the scheduler's way of assigning a pod
 * to a node. As in the reference, the pod is written straight through its storage, with the
 * Binding's uid and resourceVersion as preconditions: only spec.nodeName, the Binding's
 * annotations and the PodScheduled condition change, and no managedFields entry is recorded.
 */
import type { Request } from 'express';
import type { ObjectKey, Preconditions } from '../../storage/objects/types';
import { checkNamespace, decodeBodyOfKind, objectBodyFormat, subresourceBodyKind } from '../handlers/object-body';
import { writeResponse, type HandlerScope, type ResourceHandler } from '../handlers/scope';
import { parseWriteOptions, queryOf, type WriteOptions } from '../request/query';
import { badRequest, conflict, notFound } from '../status/catalogue';
import { FieldPath, notSupported, required } from '../status/field-errors';
import { fieldErrorText } from '../status/field-error';
import { upsertCondition } from './conditions';
import { relatedScope } from './related-scope';
import type { StoreScope } from '../registry/store/scope';
import { admitSubresourceCreate, operationOptions, type WriteRequest } from '../registry/store/admission';
import { finishRequest } from '../handlers/post-timeout';
import { writeOriginOf } from '../handlers/write-origin';
import { featureEnabled } from '../config/feature-enabled';

import type { KubeObject } from '../../api/objects';
const BINDING_DEFINITION = 'io.k8s.api.core.v1.Binding';

interface Binding {
  metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly annotations?: Record<string, string>;
    readonly labels?: Record<string, string>;
  };
  readonly target?: { readonly name?: string; readonly kind?: string };
}

/** The reference's Status for a Create that succeeded without an object to return. */
export const CREATED_STATUS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as const;

const BINDING_RESOURCE = { group: '', resource: 'pods/binding' };

/** A v1 Binding, typed before anything is looked up (a wrong-typed body is the reference's 400, not a missing pod), in the URL's namespace. */
async function readBinding(
  scope: HandlerScope,
  req: Request,
  { options, namespace }: { options: WriteOptions; namespace: string },
): Promise<Binding> {
  const expected = subresourceBodyKind(scope, {
    definition: BINDING_DEFINITION,
    group: '',
    version: 'v1',
    kind: 'Binding',
  });
  const { object } = await decodeBodyOfKind(req, objectBodyFormat(scope, req), expected, options);
  checkNamespace(scope, object, namespace);
  return object as Binding;
}

/** Admission of the Binding as the create it is (`pods/binding`, or the legacy `bindings`); mutating plugins may label it. */
async function admitBinding(
  scope: HandlerScope,
  write: WriteRequest,
  target: { key: ObjectKey; binding: Binding },
): Promise<void> {
  const object = target.binding as unknown as KubeObject;
  await admitSubresourceCreate(scope, write, {
    key: target.key,
    kind: { group: '', version: 'v1', kind: 'Binding' },
    object,
  });
}

/** Sets the pod's node once; a pod already on a node, or being deleted, is a conflict. */
export async function assignPod(
  scope: StoreScope,
  key: ObjectKey,
  binding: Binding,
  write: Pick<WriteRequest, 'dryRun' | 'deadline'>,
): Promise<void> {
  const nodeName = binding.target?.name ?? '';
  const targetKind = binding.target?.kind ?? '';
  // The reference answers these with a 500 (a bare field error); a bad request is what they are.
  const target = FieldPath.root('target');
  if (targetKind !== '' && targetKind !== 'Node')
    throw badRequest(fieldErrorText(notSupported(target.child('kind'), targetKind, ['Node', '<empty>'])));
  if (nodeName === '') throw badRequest(fieldErrorText(required(target.child('name'))));
  const preconditions: Preconditions = {
    uid: binding.metadata?.uid || undefined,
    resourceVersion: binding.metadata?.resourceVersion || undefined,
  };
  await scope.storage.update(
    key,
    (current) => {
      if (current === undefined) throw notFound({ group: '', resource: 'pods' }, key.name);
      if (current.metadata.deletionTimestamp !== undefined) {
        throw conflict(BINDING_RESOURCE, key.name, `pod ${key.name} is being deleted, cannot be assigned to a host`);
      }
      const spec = (current.spec ?? {}) as Record<string, unknown>;
      if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
        throw conflict(
          BINDING_RESOURCE,
          key.name,
          `pod ${key.name} is already assigned to node ${JSON.stringify(spec.nodeName)}`,
        );
      }
      const pod: KubeObject = structuredClone(current);
      (pod.spec as Record<string, unknown>) = { ...spec, nodeName };
      // A nomination is stale once the pod is bound; the gate clears it so no one acts on it.
      if (featureEnabled(scope.context.featureGates ?? {}, 'ClearingNominatedNodeNameAfterBinding'))
        delete (pod.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName;
      const annotations = binding.metadata?.annotations;
      if (annotations !== undefined && Object.keys(annotations).length > 0) {
        pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations };
      }
      // The node's topology labels, which PodTopologyLabels put on the Binding, behind its gate.
      const labels = binding.metadata?.labels;
      if (
        labels !== undefined &&
        Object.keys(labels).length > 0 &&
        featureEnabled(scope.context.featureGates ?? {}, 'PodTopologyLabelsAdmission')
      ) {
        pod.metadata.labels = { ...(pod.metadata.labels ?? {}), ...labels };
      }
      upsertCondition(pod, { type: 'PodScheduled', status: 'True', lastProbeTime: null }, scope.context.now());
      return pod;
    },
    { preconditions, dryRun: write.dryRun, deadline: write.deadline },
  );
}

/** POST pods/<name>/binding: the Binding names the pod the URL names. */
export function podBindingCreate(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const options = parseWriteOptions(queryOf(req), 'CreateOptions');
    const binding = await readBinding(scope, req, { options, namespace: info.namespace });
    if ((binding.metadata?.name ?? '') !== info.name)
      throw badRequest('name in URL does not match name in Binding object');
    const key = { namespace: info.namespace, name: info.name };
    await finishRequest(req, bind({ scope, pods: scope, req, options }, { key, binding, subresource: 'binding' }));
    await writeResponse(scope, res, 201, CREATED_STATUS);
  };
}

/** POST namespaces/<ns>/bindings: the legacy form, the pod named by the Binding itself. */
export function legacyBindingCreate(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const options = parseWriteOptions(queryOf(req), 'CreateOptions');
    const binding = await readBinding(scope, req, { options, namespace: info.namespace });
    const name = binding.metadata?.name ?? '';
    if (name === '') throw badRequest('Name parameter required.');
    const pods = relatedScope(scope, { group: '', version: 'v1', resource: 'pods' });
    const target = { key: { namespace: info.namespace, name }, binding, subresource: '' };
    await finishRequest(req, bind({ scope, pods, req, options }, target));
    await writeResponse(scope, res, 201, CREATED_STATUS);
  };
}

/** A binding's rest-layer work (what runs under finishRequest): admission, then the pod's node. */
async function bind(
  request: { scope: HandlerScope; pods: StoreScope; req: Request; options: WriteOptions },
  target: { key: ObjectKey; binding: Binding; subresource: string },
): Promise<void> {
  const { options } = request;
  const write: WriteRequest = {
    ...writeOriginOf(request.req),
    dryRun: options.dryRun,
    options: operationOptions('CreateOptions', options),
    subresource: target.subresource,
  };
  await admitBinding(request.scope, write, target);
  await assignPod(request.pods, target.key, target.binding, write);
}
