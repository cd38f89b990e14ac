/** scheduling.k8s.io/v1 resources. */
import type { ResourceType } from '../types';
import { fill, type Json } from '../defaults/fill';
import { defineKind } from './define';
import { priorityClassPrinter } from '../../table/printers';
import { validatePriorityClass, validatePriorityClassUpdate } from '../../validation/scheduling';

export const schedulingKinds: readonly ResourceType[] = [
  defineKind({
    group: 'scheduling.k8s.io',
    resource: 'priorityclasses',
    printer: priorityClassPrinter,
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
    behaviour: {
      defaults: (priorityClass) => void fill(priorityClass as Json, 'preemptionPolicy', 'PreemptLowerPriority'),
      validate: validatePriorityClass,
      validateUpdate: validatePriorityClassUpdate,
    },
  }),
];
