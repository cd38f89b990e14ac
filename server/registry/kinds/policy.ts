/** policy/v1 resources. */
import {
  validatePodDisruptionBudget,
  validatePodDisruptionBudgetStatusUpdate,
  validatePodDisruptionBudgetUpdate,
} from '../../validation/policy';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { podDisruptionBudgetPrinter } from '../../table/admin-printers';

export const policyKinds: readonly ResourceType[] = [
  defineKind({
    group: 'policy',
    resource: 'poddisruptionbudgets',
    requiresResourceVersionOnUpdate: true,
    printer: podDisruptionBudgetPrinter,
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    subresources: { status: true },
    behaviour: {
      updatePasses: [],
      statusUpdatePasses: [],
      initialStatus: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
      tracksGeneration: true,
      validate: validatePodDisruptionBudget,
      validateUpdate: validatePodDisruptionBudgetUpdate,
      validateStatusUpdate: validatePodDisruptionBudgetStatusUpdate,
    },
  }),
];
