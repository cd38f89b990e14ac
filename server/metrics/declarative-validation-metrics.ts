/**
 * The reference's two declarative validation counters, registered with every server as its
 * validation package registers them, whatever the gates say. Mismatches are counted by the
 * writes (server/validation/declarative-validation.ts). The panic counter stays at 0: in the
 * reference it counts a generated rule that panicked, and capstan's rules are plain functions of
 * decoded JSON that a request's content cannot make throw.
 */
import { Counter, type Registry } from 'prom-client';
import type { DeclarativeMismatchCounter } from '../registry/types';

export function registerDeclarativeValidationMetrics(registry: Registry): DeclarativeMismatchCounter {
  const registers = [registry];
  const mismatches = new Counter({
    name: 'apiserver_validation_declarative_validation_mismatch_total',
    help: '[BETA] Number of times declarative validation results differed from handwritten validation results for core types.',
    registers,
  });
  new Counter({
    name: 'apiserver_validation_declarative_validation_panic_total',
    help: '[BETA] Number of times declarative validation has panicked during validation.',
    registers,
  });
  return (count) => mismatches.inc(count);
}
