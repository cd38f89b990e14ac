/**
 * Stage: records every request in `apiserver_request_total` and
 * `apiserver_request_duration_seconds` when its response ends, keeps long-running requests in
 * `apiserver_longrunning_requests` while they run, counts the events a watch sends
 * (`apiserver_watch_events_total`, `apiserver_watch_events_sizes`: the watch handler reports
 * each through `recordWatchEvent`, as one write may carry several), and marks requested
 * deprecated APIs in `apiserver_requested_deprecated_apis`.
 *
 * It runs right after request info, so that answers of every later stage (401, 403, 429, 504)
 * are counted too.
 */
import type { RequestHandler, Response } from 'express';
import '../request/request-context';
import type { RequestInfo } from '../request/request-info';
import { isLongRunning } from '../request/long-running';
import type { ApiserverMetrics } from './apiserver-metrics';
import { requestLabels } from './request-labels';

/** A served group-version that is deprecated, and the release that removes it ("" when none is planned). */
export interface DeprecatedApi {
  readonly removedRelease: string;
}

export interface RequestMetricsOptions {
  readonly metrics: ApiserverMetrics;
  /** Whether the requested group-version-resource is deprecated; default: none is. */
  readonly deprecatedApi?: (info: RequestInfo) => DeprecatedApi | undefined;
}

export function withRequestMetrics(options: RequestMetricsOptions): RequestHandler {
  const { metrics } = options;
  return (req, res, next) => {
    const startedAt = performance.now();
    const info = req.requestInfo;
    const labels = requestLabels({
      info,
      method: req.method,
      rawQuery: req.rawQuery,
      contentType: req.headers['content-type'],
    });

    const deprecated = info.isResourceRequest ? options.deprecatedApi?.(info) : undefined;
    if (deprecated) {
      metrics.requestedDeprecatedApis.set(
        {
          group: info.apiGroup,
          version: info.apiVersion,
          resource: info.resource,
          subresource: info.subresource,
          removed_release: deprecated.removedRelease,
        },
        1,
      );
    }

    const longRunning = isLongRunning(info);
    const { dry_run: _dryRun, ...longRunningLabels } = labels;
    if (longRunning) {
      metrics.longrunningRequests.inc(longRunningLabels);
      if (info.verb === 'watch')
        countWatchEvents(res, metrics, { group: info.apiGroup, version: info.apiVersion, resource: info.resource });
    }

    // 'close' fires once, whether the response finished or the client went away.
    res.once('close', () => {
      if (longRunning) metrics.longrunningRequests.dec(longRunningLabels);
      metrics.requestTotal.inc({ ...labels, code: String(res.statusCode) });
      metrics.requestDuration.observe(labels, (performance.now() - startedAt) / 1000);
    });
    next();
  };
}

const watchEventCounters = new WeakMap<Response, (bytes: number) => void>();

/** Counts one event of a watch response, of `bytes` as encoded (a no-op when metrics are off). */
export function recordWatchEvent(res: Response, bytes: number): void {
  watchEventCounters.get(res)?.(bytes);
}

function countWatchEvents(
  res: Response,
  metrics: ApiserverMetrics,
  labels: { group: string; version: string; resource: string },
): void {
  watchEventCounters.set(res, (bytes) => {
    metrics.watchEventsTotal.inc(labels);
    metrics.watchEventsSizes.observe(labels, bytes);
  });
}
