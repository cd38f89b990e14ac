/**
 * A kind's create and update preparation under given feature gates, as the generic store runs
 * it (defaults, preparation, validation), for the gated-field tests: what the reference
 * answered to the same objects under the same gates is written beside each case.
 */
import type { KubeObject } from '../../../../api/objects';
import { builtinRegistry } from '../../../../server/builtin-types';
import type { ResourceType } from '../../../../server/registry/types';
import { fieldErrorText } from '../../../../server/status/field-error';
import { writeContextWith } from '../../../helpers/write-context';

const registry = builtinRegistry();

export function typeOf(group: string, resource: string, version = 'v1'): ResourceType {
  const type = registry.find({ group, version }, resource);
  if (type === undefined) throw new Error(`no ${resource} in ${group || 'core'}/${version}`);
  return type;
}

export interface Written {
  readonly object: KubeObject;
  readonly errors: readonly string[];
}

/** The object a create stores (or the field errors it is refused with). */
export function created(type: ResourceType, sent: KubeObject, gates: Readonly<Record<string, boolean>>): Written {
  const context = writeContextWith(gates);
  const object = structuredClone(sent);
  type.strategy.applyDefaults?.(object, type.storageVersion, context.featureEnabled);
  type.strategy.prepareForCreate?.(object, context);
  return { object, errors: (type.strategy.validate?.(object, context) ?? []).map(fieldErrorText) };
}

/** The object an update of the main resource (or its status) stores over `old`. */
export function updated(
  type: ResourceType,
  old: KubeObject,
  change: (next: KubeObject) => void,
  gates: Readonly<Record<string, boolean>>,
  target: 'main' | 'status' = 'main',
): Written {
  const context = writeContextWith(gates);
  const object = structuredClone(old);
  change(object);
  type.strategy.applyDefaults?.(object, type.storageVersion, context.featureEnabled);
  if (target === 'status') type.strategy.prepareForStatusUpdate?.(object, old, context);
  else type.strategy.prepareForUpdate?.(object, old, context);
  const errors =
    target === 'status'
      ? type.strategy.validateStatusUpdate?.(object, old, context)
      : type.strategy.validateUpdate?.(object, old, context);
  return { object, errors: (errors ?? []).map(fieldErrorText) };
}
