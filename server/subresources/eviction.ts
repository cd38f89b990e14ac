/**
 * `pods/eviction`: a delete that honours PodDisruptionBudgets (kubectl drain, the descheduler).
 * As in the reference: a pod that is not running (Pending, Succeeded, Failed) or already
 * terminating is deleted without asking a budget; otherwise the one budget selecting it must
 * allow a disruption (429 TooManyRequests with the budget's reason when it does not), its
 * status.disruptionsAllowed is decremented and the pod recorded in disruptedPods, then the pod
 * gets the DisruptionTarget condition and is deleted.
 */
import { writeOriginOf } from '../handlers/write-origin';
import { finishRequest } from '../handlers/post-timeout';
import type { Request } from 'express';
import type { ObjectKey } from '../../storage/objects/types';
import {
  checkNamespace,
  decodeBodyOfKind,
  fieldManagerOf,
  objectBodyFormat,
  subresourceBodyKind,
} from '../handlers/object-body';
import { writeResponse, type HandlerScope, type ResourceHandler } from '../handlers/scope';
import { admitSubresourceCreate, operationOptions, type WriteRequest } from '../registry/store/admission';
import { deleteObject, type Deletion } from '../registry/store/delete';
import type { StoreScope } from '../registry/store/scope';
import { updateObject } from '../registry/store/update';
import { parseWriteOptions, queryOf, validateDeleteOptions, type WriteOptions } from '../request/query';
import { matchesLabels, parseLabelSelector, formatLabelSelector } from '../selectors/label-selector';
import { badRequest, forbidden, internalError, invalid } from '../status/catalogue';
import { FieldPath, invalid as invalidField } from '../status/field-errors';
import { relatedScope } from './related-scope';
import { StatusError } from '../status/status-error';
import { CREATED_STATUS } from './binding';
import { upsertCondition } from './conditions';

import { metaTime, type KubeObject } from '../../api/objects';
interface Eviction {
  readonly metadata?: { readonly name?: string };
  readonly deleteOptions?: {
    readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
    readonly propagationPolicy?: Deletion['propagationPolicy'];
    readonly gracePeriodSeconds?: number;
    readonly orphanDependents?: boolean;
    readonly dryRun?: readonly string[];
    readonly ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
  };
}

interface BudgetStatus {
  observedGeneration?: number;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  disruptedPods?: Record<string, string>;
}

/** The reference refuses to track more unconfirmed evictions than this per budget. */
const MAX_DISRUPTED_PODS = 2000;
/** What the reference tells a client to wait while a new budget's status is computed. */
const UNPROCESSED_RETRY_SECONDS = 10;
const APISERVER_MANAGER = 'kube-apiserver';
const EVICTION_KIND = { group: 'policy', version: 'v1', kind: 'Eviction' };
const EVICTION_DEFINITION = 'io.k8s.api.policy.v1.Eviction';

function budgetRefusal(cause: string, retryAfterSeconds?: number): StatusError {
  return new StatusError({
    code: 429,
    reason: 'TooManyRequests',
    message: "Cannot evict pod as it would violate the pod's disruption budget.",
    details: {
      causes: [{ reason: 'DisruptionBudget', message: cause }],
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    },
  });
}

/** Pods that are not running disrupt nothing a budget counts. */
function ignoresBudgets(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return (
    pod.metadata.deletionTimestamp !== undefined || phase === 'Pending' || phase === 'Succeeded' || phase === 'Failed'
  );
}

/** Takes one disruption from the budget, or refuses as the reference does. */
async function takeDisruption(
  scope: StoreScope,
  budgetKey: ObjectKey,
  podName: string,
  write: WriteRequest,
): Promise<void> {
  await updateObject(scope, {
    ...write,
    key: budgetKey,
    target: 'status',
    subresource: 'status',
    manager: APISERVER_MANAGER,
    updatedObject: (current) => {
      const budget = current!;
      const status = (budget.status ??= {}) as BudgetStatus;
      const name = budget.metadata.name ?? '';
      if ((status.observedGeneration ?? 0) < (budget.metadata.generation ?? 0)) {
        throw budgetRefusal(
          `The disruption budget ${name} is still being processed by the server.`,
          UNPROCESSED_RETRY_SECONDS,
        );
      }
      const allowed = status.disruptionsAllowed ?? 0;
      if (allowed < 0)
        throw forbidden(
          { group: 'policy', resource: 'poddisruptionbudgets' },
          name,
          'pdb disruptions allowed is negative',
        );
      if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) {
        throw forbidden(
          { group: 'policy', resource: 'poddisruptionbudgets' },
          name,
          'DisruptedPods map too big - too many evictions not confirmed by PDB controller',
        );
      }
      if (allowed === 0) {
        throw budgetRefusal(
          `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`,
        );
      }
      status.disruptionsAllowed = allowed - 1;
      status.disruptedPods = { ...(status.disruptedPods ?? {}), [podName]: metaTime(scope.context.now()) };
      const sufficient = status.disruptionsAllowed > 0;
      upsertCondition(
        budget,
        {
          type: 'DisruptionAllowed',
          status: sufficient ? 'True' : 'False',
          observedGeneration: budget.metadata.generation,
          reason: sufficient ? 'SufficientPods' : 'InsufficientPods',
          message: '',
        },
        scope.context.now(),
      );
      return budget;
    },
  });
}

/**
 * Whether the eviction is a dry run: kubectl drain --dry-run=server asks it in the Eviction's
 * deleteOptions, other clients in the query. As the reference, either asks it alone; when both
 * do they must agree, and a disagreement is the reference's 500 (a plain error there).
 */
function evictionDryRun(eviction: Eviction, queryDryRun: readonly string[]): boolean {
  const bodyDryRun = eviction.deleteOptions?.dryRun ?? [];
  if (bodyDryRun.length === 0 || queryDryRun.length === 0) return bodyDryRun.length > 0 || queryDryRun.length > 0;
  if (bodyDryRun.length !== queryDryRun.length || bodyDryRun.some((value, i) => value !== queryDryRun[i]))
    throw internalError(
      `Non-matching dry-run options in request and content: [${queryDryRun.join(' ')}] and [${bodyDryRun.join(' ')}]`,
    );
  return true;
}

/** An Eviction of policy/v1 (or v1beta1, read the same), typed as the reference decodes it, in the URL's namespace. */
async function readEviction(
  scope: HandlerScope,
  req: Request,
  { options, namespace }: { options: WriteOptions; namespace: string },
): Promise<Eviction> {
  const expected = subresourceBodyKind(scope, {
    definition: EVICTION_DEFINITION,
    ...EVICTION_KIND,
    accepted: ['policy/v1beta1'],
  });
  const { object } = await decodeBodyOfKind(req, objectBodyFormat(scope, req), expected, options);
  checkNamespace(scope, object, namespace);
  return object as Eviction;
}

export function podEvictionCreate(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const parameters = queryOf(req);
    const query = parseWriteOptions(parameters, 'CreateOptions');
    const eviction = await readEviction(scope, req, { options: query, namespace: info.namespace });
    if ((eviction.metadata?.name ?? '') !== info.name)
      throw badRequest('name in URL does not match name in Eviction object');
    if (eviction.deleteOptions?.ignoreStoreReadErrorWithClusterBreakingPotential === true)
      throw invalid({ group: 'policy', kind: 'Eviction' }, info.name, [
        invalidField(
          FieldPath.root('deleteOptions', 'ignoreStoreReadErrorWithClusterBreakingPotential'),
          true,
          'can not be set for pod eviction, try after removing the option',
        ),
      ]);
    const dryRun = evictionDryRun(eviction, parameters.getAll('dryRun'));
    const key = { namespace: info.namespace, name: info.name };
    const write: WriteRequest = {
      ...writeOriginOf(req),
      dryRun: query.dryRun,
      options: operationOptions('CreateOptions', query),
      subresource: 'eviction',
    };
    const manager = fieldManagerOf(req, query);
    await finishRequest(req, evict(scope, { key, eviction, dryRun, write, manager }));
    await writeResponse(scope, res, 201, CREATED_STATUS);
  };
}

/**
 * An eviction's rest-layer work (what runs under finishRequest, as the reference's create
 * handler runs it): admission, the budget's disruption, the pod's condition, its deletion.
 */
async function evict(
  scope: HandlerScope,
  request: {
    readonly key: ObjectKey;
    readonly eviction: Eviction;
    /** The eviction's own dry run, which the budget and the pod see. */
    readonly dryRun: boolean;
    readonly write: WriteRequest;
    readonly manager: string;
  },
): Promise<void> {
  const { key, eviction, dryRun, write } = request;
  await admitSubresourceCreate(scope, write, { key, kind: EVICTION_KIND, object: eviction as KubeObject });
  // Admission saw the request's own dry-run; the budget and the pod see the eviction's.
  const evictionWrite: WriteRequest = { ...write, dryRun };
  const pod = await scope.storage.get(key);
  // The reference validates these options when it deletes the pod; refused before the budget
  // or the pod is written, so that a refused eviction changes nothing.
  const options = eviction.deleteOptions;
  if (options !== undefined && options !== null)
    validateDeleteOptions({
      dryRun: options.dryRun ?? [],
      propagationPolicy: options.propagationPolicy,
      orphanDependents: options.orphanDependents,
      gracePeriodSeconds: options.gracePeriodSeconds,
      preconditions: options.preconditions,
    });
  if (!ignoresBudgets(pod)) {
    const budgets = relatedScope(scope, { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' });
    const { items } = await budgets.storage.list(
      { namespace: key.namespace },
      { predicate: { everything: true, matches: () => true } },
    );
    const selecting = items.filter((budget) => {
      const selector = (budget.spec as { selector?: unknown } | undefined)?.selector;
      // A budget without a selector selects nothing in policy/v1's reading of a nil selector.
      return (
        selector !== undefined &&
        selector !== null &&
        matchesLabels(parseLabelSelector(formatLabelSelector(selector)), pod)
      );
    });
    if (selecting.length > 1)
      throw internalError(
        'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
      );
    if (selecting.length === 1) {
      const budgetKey = { namespace: key.namespace, name: selecting[0].metadata.name ?? '' };
      await takeDisruption(budgets, budgetKey, key.name, evictionWrite);
    }
  }
  // The reference marks the pod only when the eviction is real.
  if (!dryRun)
    await updateObject(scope, {
      ...write,
      key,
      target: 'status',
      subresource: 'status',
      manager: request.manager,
      preconditions: { uid: pod.metadata.uid },
      updatedObject: (current) => {
        const next = current!;
        if (next.metadata.deletionTimestamp === undefined) {
          upsertCondition(
            next,
            {
              type: 'DisruptionTarget',
              status: 'True',
              lastProbeTime: null,
              reason: 'EvictionByEvictionAPI',
              message: 'Eviction API: evicting',
            },
            scope.context.now(),
          );
        }
        return next;
      },
    });
  // The eviction's own grace period decides how long the pod lingers (kubectl drain --grace-period).
  const grace = eviction.deleteOptions?.gracePeriodSeconds;
  const deletion: Deletion = {
    preconditions: eviction.deleteOptions?.preconditions,
    propagationPolicy: eviction.deleteOptions?.propagationPolicy,
    ...(typeof grace === 'number' && Number.isInteger(grace) ? { gracePeriodSeconds: grace } : {}),
  };
  await deleteObject(scope, {
    ...evictionWrite,
    key,
    deletion,
    options: operationOptions('DeleteOptions', { dryRun, ...deletion }),
  });
}
