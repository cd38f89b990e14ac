/**
 * The pair of metrics the reference keeps for each configuration file it reloads by itself
 * (authentication, encryption): `apiserver_<config>_controller_automatic_reloads_total` and
 * `..._automatic_reload_last_timestamp_seconds`, by status and this server's hashed identity.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export type ReloadStatus = 'success' | 'failure';

export interface AutomaticReloadMetricsOptions {
  /** The configuration's part of the names: `authentication_config`, `encryption_config`. */
  readonly config: string;
  /** The help texts, which differ from one configuration to another in the reference. */
  readonly reloadsHelp: string;
  readonly lastTimestampHelp: string;
  /** The `apiserver_id_hash` label's value. */
  readonly apiserverIdHash: string;
  readonly registers: Registry[];
}

/** Registers the pair; the function it returns counts one reload and stamps its time. */
export function automaticReloadMetrics(options: AutomaticReloadMetricsOptions): (status: ReloadStatus) => void {
  const { config, apiserverIdHash, registers } = options;
  const reloads = new Counter({
    name: `apiserver_${config}_controller_automatic_reloads_total`,
    help: options.reloadsHelp,
    labelNames: ['status', 'apiserver_id_hash'],
    registers,
  });
  const lastReload = new Gauge({
    name: `apiserver_${config}_controller_automatic_reload_last_timestamp_seconds`,
    help: options.lastTimestampHelp,
    labelNames: ['status', 'apiserver_id_hash'],
    registers,
  });
  return (status) => {
    reloads.inc({ status, apiserver_id_hash: apiserverIdHash });
    lastReload.set({ status, apiserver_id_hash: apiserverIdHash }, Date.now() / 1000);
  };
}
