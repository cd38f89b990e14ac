/** node.k8s.io/v1 resources. */
import { runtimeClassWarnings } from '../../validation/deprecated-node-labels';
import { validateRuntimeClass, validateRuntimeClassUpdate } from '../../validation/node';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { runtimeClassPrinter } from '../../table/device-printers';

export const nodeKinds: readonly ResourceType[] = [
  defineKind({
    group: 'node.k8s.io',
    resource: 'runtimeclasses',
    requiresResourceVersionOnUpdate: true,
    printer: runtimeClassPrinter,
    kind: 'RuntimeClass',
    namespaced: false,
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      validate: validateRuntimeClass,
      validateUpdate: validateRuntimeClassUpdate,
      warnings: runtimeClassWarnings,
    },
  }),
];
