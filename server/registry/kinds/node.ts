/** node.k8s.io/v1 resources. */
import { validateRuntimeClass } from '../../validation/node';
import type { ResourceType } from '../types';
import { defineKind } from './define';

export const nodeKinds: readonly ResourceType[] = [
  defineKind({
    group: 'node.k8s.io',
    resource: 'runtimeclasses',
    kind: 'RuntimeClass',
    namespaced: false,
    behaviour: { validate: validateRuntimeClass },
  }),
];
