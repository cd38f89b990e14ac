/** events.k8s.io/v1 Events: the core Events' storage seen through the newer API. */
import { convertEvent } from '../conversion/events';
import type { ResourceType } from '../types';
import { EVENT_FIELDS } from './core';
import { defineKind, fieldLabels } from './define';
import { validateEventCreate, validateEventUpdate } from '../../validation/events';
import { eventsApiEventPrinter } from '../../table/printers';

export const eventsKinds: readonly ResourceType[] = [
  defineKind({
    group: 'events.k8s.io',
    resource: 'events',
    printer: eventsApiEventPrinter,
    allowCreateOnUpdate: true,
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    // Stored as core v1 Events, so field selectors read the core field names: this API's own
    // labels are converted to them, as the reference converts them (involvedObject.* is no label here).
    storageGroup: '',
    storageVersion: 'v1',
    storagePrefix: 'events',
    selectableFields: EVENT_FIELDS,
    fieldLabels: fieldLabels({
      reason: 'reason',
      'regarding.kind': 'involvedObject.kind',
      'regarding.namespace': 'involvedObject.namespace',
      'regarding.name': 'involvedObject.name',
      'regarding.uid': 'involvedObject.uid',
      'regarding.apiVersion': 'involvedObject.apiVersion',
      'regarding.resourceVersion': 'involvedObject.resourceVersion',
      'regarding.fieldPath': 'involvedObject.fieldPath',
      reportingController: 'reportingComponent',
      type: 'type',
      'metadata.namespace': 'metadata.namespace',
      'metadata.name': 'metadata.name',
    }),
    convert: convertEvent,
    garbageCollectionPolicy: 'Unsupported',
    behaviour: { validate: validateEventCreate('events.k8s.io'), validateUpdate: validateEventUpdate('events.k8s.io') },
  }),
];
