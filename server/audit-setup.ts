/**
 * Audit from the `--audit-*` flags: the policy, and a backend for each of `--audit-log-path` and
 * `--audit-webhook-config-file` behind its bounded buffer. Audit is on when there is a policy
 * and at least one backend, as in the reference; otherwise nothing is added to the chain.
 * A bad policy, log path or webhook kubeconfig fails the start.
 */
import type { AuditFlags, AuditThrottleFlags } from './config/flags';
import type { ThrottleSettings } from './audit/throttle';
import type { ApiserverMetrics } from './metrics/apiserver-metrics';
import { AuditConfigError } from './audit/record/config-error';
import { auditOutput, type AuditOutput, type BufferSettings } from './audit/backend';
import { openLogBackend } from './audit/log-backend';
import { loadAuditPolicy, type AuditPolicy } from './audit/record/policy';
import { openWebhookBackend } from './audit/webhook-backend';

import type { AuditBackend } from './audit/audit-backend';
export interface Audit {
  readonly policy: AuditPolicy;
  readonly output: AuditOutput;
}

export function setUpAudit(flags: AuditFlags, metrics: ApiserverMetrics): Audit | undefined {
  if (flags.policyFile === undefined || (flags.logPath === undefined && flags.webhookConfigFile === undefined))
    return undefined;
  const policy = loadAuditPolicy(flags.policyFile);
  const backends: { backend: AuditBackend; settings: BufferSettings }[] = [];
  if (flags.logPath !== undefined) {
    backends.push({
      backend: openLogBackend({
        path: flags.logPath,
        format: flags.logFormat,
        maxSizeMB: flags.logMaxSizeMB,
        maxBackups: flags.logMaxBackups,
        maxAgeDays: flags.logMaxAgeDays,
        compress: flags.logCompress,
      }),
      settings: {
        mode: flags.logMode,
        bufferSize: flags.logBatchBufferSize,
        maxBatchSize: flags.logBatchMaxSize,
        maxWaitMs: flags.logBatchMaxWaitMs,
        throttle: throttleOf(flags.logThrottle),
        truncate: flags.logTruncate.enabled ? flags.logTruncate : undefined,
      },
    });
  }
  if (flags.webhookConfigFile !== undefined) {
    backends.push({
      backend: webhookBackendOf(flags.webhookConfigFile, flags.webhookInitialBackoffMs),
      settings: {
        mode: flags.webhookMode,
        bufferSize: flags.webhookBatchBufferSize,
        maxBatchSize: flags.webhookBatchMaxSize,
        maxWaitMs: flags.webhookBatchMaxWaitMs,
        throttle: throttleOf(flags.webhookThrottle),
        truncate: flags.webhookTruncate.enabled ? flags.webhookTruncate : undefined,
      },
    });
  }
  return { policy, output: auditOutput(backends, metrics) };
}

/** A throttle without a rate would never send: the reference refuses one, here it means none. */
function throttleOf(flags: AuditThrottleFlags): ThrottleSettings | undefined {
  return flags.enabled && flags.qps > 0 ? { qps: flags.qps, burst: flags.burst } : undefined;
}

function webhookBackendOf(kubeconfigFile: string, initialBackoffMs: number): AuditBackend {
  try {
    return openWebhookBackend({ kubeconfigFile, initialBackoffMs });
  } catch (error) {
    throw new AuditConfigError(
      `invalid audit webhook config file ${JSON.stringify(kubeconfigFile)} (--audit-webhook-config-file): ${(error as Error).message}`,
    );
  }
}
