/**
 * Stage: records every request in `apiserver_request_total` and
 * `apiserver_request_duration_seconds` when its response ends, keeps long-running requests in
 * `apiserver_longrunning_requests` while they run, counts the events a watch sends
 * (`apiserver_watch_events_total`, `apiserver_watch_events_sizes`: the watch handler reports
 * each to its `watchEventRecorder`, as one write may carry several), and marks requested
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

    if (isLongRunning(info)) {
      const { dry_run: _dryRun, ...longRunningLabels } = labels;
      metrics.longrunningRequests.inc(longRunningLabels);
      if (info.verb === 'watch')
        countWatchEvents(res, metrics, { group: info.apiGroup, version: info.apiVersion, resource: info.resource });
      res.once('close', () => metrics.longrunningRequests.dec(longRunningLabels));
    }

    // 'close' fires once, whether the response finished or the client went away.
    res.once('close', () => {
      metrics.requestTotal.inc({ ...labels, code: String(res.statusCode) });
      metrics.requestDuration.observe(labels, (performance.now() - startedAt) / 1000);
    });
    next();
  };
}

const watchEventCounters = new WeakMap<Response, (bytes: number) => void>();

const uncounted = (): void => {};

/**
 * What counts one event of a watch response, of `bytes` as encoded (a no-op when metrics are
 * off): taken once per watch, since a fan-out calls it once per event and watcher.
 */
export function watchEventRecorder(res: Response): (bytes: number) => void {
  return watchEventCounters.get(res) ?? uncounted;
}

function countWatchEvents(
  res: Response,
  metrics: ApiserverMetrics,
  labels: { group: string; version: string; resource: string },
): void {
  // Series held, not looked up per event; each made at its first event, so that watches that
  // never send one (refused, empty) add no label set.
  const total = metrics.watchEventsTotal.series(labels);
  const sizes = metrics.watchEventsSizes.series(labels);
  watchEventCounters.set(res, (bytes) => {
    total.inc();
    sizes.observe(bytes);
  });
}
