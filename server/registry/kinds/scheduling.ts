/** scheduling.k8s.io/v1 resources. */
import type { ResourceType } from '../types';
import { fill, type Json } from '../defaults/fill';
import { defineKind } from './define';
import { priorityClassPrinter } from '../../table/printers';
import {
  SYSTEM_PRIORITY_CLASSES,
  validatePriorityClass,
  validatePriorityClassUpdate,
} from '../../validation/scheduling';

export const schedulingKinds: readonly ResourceType[] = [
  defineKind({
    group: 'scheduling.k8s.io',
    resource: 'priorityclasses',
    printer: priorityClassPrinter,
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
    deleteRefusal: (name) =>
      SYSTEM_PRIORITY_CLASSES.some((spc) => spc.metadata.name === name)
        ? 'this is a system priority class and cannot be deleted'
        : undefined,
    behaviour: {
      defaults: (priorityClass) => void fill(priorityClass as Json, 'preemptionPolicy', 'PreemptLowerPriority'),
      // Generation 1 on create, then never bumped: the reference's strategy sets it so and no more.
      prepareForCreate: (priorityClass) => void (priorityClass.metadata.generation = 1),
      validate: validatePriorityClass,
      validateUpdate: validatePriorityClassUpdate,
    },
  }),
];
