/** flowcontrol.apiserver.k8s.io/v1 resources: API Priority and Fairness configuration. */
import type { KubeObject } from '../../../api/objects';
import { validateFlowSchema, validatePriorityLevelConfiguration } from '../../validation/flowcontrol';
import { fill, isEmptyValue, type Json } from '../defaults/fill';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { flowSchemaPrinter, priorityLevelPrinter } from '../../table/admin-printers';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import { METADATA_AND_SPEC } from '../reset-fields';

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** Rewrites `object`'s keys in the order given (the Go struct's), the others after, so output reads as the reference's. */
function orderKeys(object: Json, order: readonly string[]): void {
  const entries = Object.entries(object);
  for (const [key] of entries) delete object[key];
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  for (const [key, value] of entries.sort(([a], [b]) => rank(a) - rank(b))) object[key] = value;
}

/** An unset (zero) number takes the default, as the reference's defaulting of non-pointer fields. */
function fillZero(object: Json, key: string, value: number): void {
  if (isEmptyValue(object[key])) object[key] = value;
}

function defaultFlowSchema(object: KubeObject): void {
  const spec = record(object.spec);
  if (spec !== undefined) fillZero(spec, 'matchingPrecedence', 1000);
}

function defaultPriorityLevel(object: KubeObject): void {
  const spec = record(object.spec);
  const limited = record(spec?.limited);
  if (limited !== undefined) {
    fill(limited, 'nominalConcurrencyShares', 30);
    fill(limited, 'lendablePercent', 0);
    const queuing = record(record(limited.limitResponse)?.queuing);
    if (queuing !== undefined) {
      fillZero(queuing, 'queues', 64);
      fillZero(queuing, 'handSize', 8);
      fillZero(queuing, 'queueLengthLimit', 50);
    }
    orderKeys(limited, ['nominalConcurrencyShares', 'limitResponse', 'lendablePercent', 'borrowingLimitPercent']);
  }
  const exempt = record(spec?.exempt);
  if (exempt !== undefined) {
    fill(exempt, 'nominalConcurrencyShares', 0);
    fill(exempt, 'lendablePercent', 0);
  }
}

export const flowcontrolKinds: readonly ResourceType[] = [
  defineKind({
    group: 'flowcontrol.apiserver.k8s.io',
    resource: 'flowschemas',
    printer: flowSchemaPrinter,
    kind: 'FlowSchema',
    namespaced: false,
    subresources: { status: true },
    statusResetFields: METADATA_AND_SPEC,
    behaviour: {
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      defaults: defaultFlowSchema,
      tracksGeneration: true,
      validate: validateFlowSchema,
    },
  }),
  defineKind({
    group: 'flowcontrol.apiserver.k8s.io',
    resource: 'prioritylevelconfigurations',
    printer: priorityLevelPrinter,
    kind: 'PriorityLevelConfiguration',
    namespaced: false,
    subresources: { status: true },
    statusResetFields: METADATA_AND_SPEC,
    behaviour: {
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      updatePasses: ['create'],
      defaults: defaultPriorityLevel,
      tracksGeneration: true,
      validate: validatePriorityLevelConfiguration,
    },
  }),
];
