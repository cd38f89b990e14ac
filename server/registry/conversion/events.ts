/**
 * Core v1 Events and events.k8s.io/v1 Events are one stored object (core v1, under
 * `/registry/events`) seen through two APIs. The reference converts both through its
 * internal Event; the differences are renamed fields only.
 */
import type { KubeObject } from '../../../api/objects';
import { groupVersionString, type GroupVersion } from '../../../api/identity';
import { renameFields, reversed } from './rename';

export const CORE_EVENT_API_VERSION = 'v1';
export const EVENTS_API_VERSION = 'events.k8s.io/v1';

/** core v1 field → events.k8s.io/v1 field. */
const CORE_TO_EVENTS: readonly (readonly [string, string])[] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

/** Converts an Event of either API to `to`; the object's own apiVersion says where it starts. */
export function convertEvent(object: KubeObject, to: GroupVersion): KubeObject {
  const target = groupVersionString(to);
  const source = object.apiVersion ?? CORE_EVENT_API_VERSION;
  if (source === target) return object;
  const { apiVersion: _apiVersion, kind: _kind, ...fields } = object;
  let renamed: Record<string, unknown>;
  if (source === CORE_EVENT_API_VERSION && target === EVENTS_API_VERSION)
    renamed = withoutEmptyReporting(renameFields(fields, CORE_TO_EVENTS));
  else if (source === EVENTS_API_VERSION && target === CORE_EVENT_API_VERSION)
    renamed = renameFields(fields, reversed(CORE_TO_EVENTS));
  else throw new Error(`cannot convert Event from ${source} to ${target}`);
  return { apiVersion: target, kind: 'Event', ...(renamed as Pick<KubeObject, 'metadata'>) };
}

/**
 * Core v1 always has the reporting fields (`""` when unset, as a protobuf value decodes);
 * events.k8s.io/v1 leaves them out when empty.
 */
function withoutEmptyReporting(event: Record<string, unknown>): Record<string, unknown> {
  if (event.reportingController !== '' && event.reportingInstance !== '') return event;
  const { reportingController, reportingInstance, ...rest } = event;
  return {
    ...rest,
    ...(reportingController !== '' ? { reportingController } : {}),
    ...(reportingInstance !== '' ? { reportingInstance } : {}),
  };
}
