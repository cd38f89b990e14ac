/**
 * The context the generic store gives a strategy, for tests that call strategies directly:
 * the 1.34 default gates, or the gates a test names, and nobody in particular writing.
 */
import { featureGateReader } from '../../server/config/feature-enabled';
import type { WriteContext } from '../../server/registry/types';

export function writeContextWith(gates: Readonly<Record<string, boolean>>): WriteContext {
  return { featureEnabled: featureGateReader(gates) };
}

export const DEFAULT_CONTEXT: WriteContext = writeContextWith({});
