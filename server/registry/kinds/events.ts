/** events.k8s.io/v1 Events: the core Events' storage seen through the newer API. */
import { convertEvent } from '../conversion/events';
import type { ResourceType } from '../types';
import { EVENT_FIELDS } from './core';
import { defineKind } from './define';
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
    // Stored as core v1 Events, so field selectors read the core field names.
    storageGroup: '',
    storageVersion: 'v1',
    storagePrefix: 'events',
    selectableFields: EVENT_FIELDS,
    convert: convertEvent,
    garbageCollectionPolicy: 'Unsupported',
    behaviour: { validate: validateEventCreate('events.k8s.io'), validateUpdate: validateEventUpdate('events.k8s.io') },
  }),
];
