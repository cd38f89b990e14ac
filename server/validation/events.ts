/**
 * Event validation, after the reference's ValidateEventCreate: core v1 Events get only the
 * legacy rules (kept loose for old clients), events.k8s.io/v1 Events the strict ones besides.
 * The reference judges its internal Event, whose field names are core v1's: an events.k8s.io
 * Event is converted to that shape first (`regarding` is judged as `involvedObject`), and only
 * the reporting controller keeps the name of the API that wrote it.
 */
import type { KubeObject } from '../../api/objects';
import { convertEvent } from '../registry/conversion/events';
import type { FieldError } from '../status/field-error';
import { FieldPath, GoValue, invalid, required } from '../status/field-errors';
import { isDNS1123Subdomain, isQualifiedName } from './names';
import { internalCompactJson } from './internal-json';
import { immutableAs } from './semantic-equality';

/** Which API wrote the Event: the strict rules and one field's name depend on it. */
export type EventApi = 'core' | 'events.k8s.io';

const REPORTING_INSTANCE_MAX = 128;
const ACTION_MAX = 128;
const REASON_MAX = 128;
const NOTE_MAX = 1024;
const EVENT_TYPES = ['Normal', 'Warning'];
/** A struct (or pointer to one) of the generated internal table, by its package-qualified name. */
const STRUCT_TYPE = /^\*?core\./;

interface StoredEvent {
  eventTime?: string | null;
  involvedObject?: { namespace?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  message?: string;
  type?: string;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  count?: number;
  source?: { component?: string; host?: string };
  series?: { count?: number; lastObservedTime?: string | null };
}

function isSet(time: string | null | undefined): boolean {
  return time !== undefined && time !== null && time !== '';
}

function maxLength(path: FieldPath, value: string | undefined, max: number): FieldError[] {
  return (value ?? '').length > max ? [invalid(path, '', `can have at most ${max} characters`)] : [];
}

/** The rules every Event meets, whichever API wrote it. */
function legacyErrors(object: KubeObject, api: EventApi): FieldError[] {
  const event = object as StoredEvent;
  const errors: FieldError[] = [];
  const namespace = object.metadata.namespace ?? '';
  const involvedNamespace = event.involvedObject?.namespace ?? '';
  const involvedPath = FieldPath.root('involvedObject', 'namespace');
  if (!isSet(event.eventTime)) {
    // An old-style Event: its namespace agrees with the object it is about.
    const agrees =
      involvedNamespace === '' ? namespace === '' || namespace === 'default' : namespace === involvedNamespace;
    if (!agrees) errors.push(invalid(involvedPath, involvedNamespace, 'does not match event.namespace'));
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') {
      errors.push(invalid(involvedPath, involvedNamespace, 'does not match event.namespace'));
    }
    const controllerPath = FieldPath.root(api === 'core' ? 'reportingComponent' : 'reportingController');
    const controller = event.reportingComponent ?? '';
    if (controller === '') errors.push(required(controllerPath));
    for (const message of isQualifiedName(controller)) errors.push(invalid(controllerPath, controller, message));
    if (!event.reportingInstance) errors.push(required(FieldPath.root('reportingInstance')));
    errors.push(...maxLength(FieldPath.root('reportingInstance'), event.reportingInstance, REPORTING_INSTANCE_MAX));
    if (!event.action) errors.push(required(FieldPath.root('action')));
    errors.push(...maxLength(FieldPath.root('action'), event.action, ACTION_MAX));
    if (!event.reason) errors.push(required(FieldPath.root('reason')));
    errors.push(...maxLength(FieldPath.root('reason'), event.reason, REASON_MAX));
    errors.push(...maxLength(FieldPath.root('message'), event.message, NOTE_MAX));
  }
  for (const message of isDNS1123Subdomain(namespace))
    errors.push(invalid(FieldPath.root('namespace'), namespace, message));
  return errors;
}

/** What the events.k8s.io API adds on create: a new-style Event, none of the deprecated fields. */
function strictErrors(event: StoredEvent): FieldError[] {
  const errors: FieldError[] = [];
  if (event.series !== undefined && event.series !== null) {
    if ((event.series.count ?? 0) < 2) errors.push(invalid(FieldPath.root('series.count'), '', 'should be at least 2'));
    if (!isSet(event.series.lastObservedTime)) errors.push(required(FieldPath.root('series.lastObservedTime')));
  }
  if (!isSet(event.eventTime)) errors.push(required(FieldPath.root('eventTime')));
  if (!EVENT_TYPES.includes(event.type ?? ''))
    errors.push(invalid(FieldPath.root('type'), '', `has invalid value: ${event.type ?? ''}`));
  if (isSet(event.firstTimestamp)) errors.push(invalid(FieldPath.root('firstTimestamp'), '', 'needs to be unset'));
  if (isSet(event.lastTimestamp)) errors.push(invalid(FieldPath.root('lastTimestamp'), '', 'needs to be unset'));
  if ((event.count ?? 0) !== 0) errors.push(invalid(FieldPath.root('count'), '', 'needs to be unset'));
  if (event.source?.component || event.source?.host)
    errors.push(invalid(FieldPath.root('source'), '', 'needs to be unset'));
  return errors;
}

function coreShape(object: KubeObject, api: EventApi): KubeObject {
  return api === 'core' ? object : convertEvent(object, { group: '', version: 'v1' });
}

export function validateEventCreate(api: EventApi): (object: KubeObject) => FieldError[] {
  return (object) => {
    const event = coreShape(object, api);
    return [...legacyErrors(event, api), ...(api === 'core' ? [] : strictErrors(event as StoredEvent))];
  };
}

/**
 * An update passes the legacy rules; one through events.k8s.io/v1 also keeps what the event
 * recorded (the reference's strict update rules), where core v1 stays loose for old clients.
 */
export function validateEventUpdate(api: EventApi): (object: KubeObject, old: KubeObject) => FieldError[] {
  return (object, old) => {
    const event = coreShape(object, api);
    const errors = legacyErrors(event, api);
    if (api === 'core') return errors;
    const before = coreShape(old, api);
    // Each with its internal Go type: the reference compares them with Semantic.DeepEqual and
    // prints a struct as json.Marshal writes the internal one.
    const fixed = (name: string, type = 'string', path = name) => {
      const shown = STRUCT_TYPE.test(type)
        ? new GoValue(internalCompactJson(type, event[name]))
        : (event[name] ?? null);
      return immutableAs(type, FieldPath.root(path), event[name], before[name], shown);
    };
    errors.push(
      ...fixed('involvedObject', 'core.ObjectReference'),
      ...fixed('reason'),
      ...fixed('message'),
      ...fixed('source', 'core.EventSource'),
      ...fixed('firstTimestamp', 'Time'),
      ...fixed('lastTimestamp', 'Time'),
      ...fixed('count', 'int'),
    );
    // The reference compares the reason twice and reports it twice.
    errors.push(...fixed('reason'), ...fixed('type'));
    // Sub-microsecond differences are tolerated: clients truncate differently when they serialize.
    if (microseconds(event.eventTime) !== microseconds(before.eventTime)) errors.push(...fixed('eventTime'));
    errors.push(
      ...fixed('action'),
      ...fixed('related', '*core.ObjectReference'),
      ...fixed('reportingComponent', 'string', 'reportingController'),
      ...fixed('reportingInstance'),
    );
    return errors;
  };
}

/** A MicroTime's instant in whole microseconds, or null when unset. */
export function microseconds(time: unknown): number | null {
  if (typeof time !== 'string' || time === '') return null;
  const match = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(time);
  if (match === null) return null;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  return seconds * 1000 + Number((match[2] ?? '').slice(0, 6).padEnd(6, '0'));
}
