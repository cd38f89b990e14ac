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
  const watchEvents = watchEventTallies(metrics);
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
        countWatchEvents(res, metrics, watchEvents, {
          group: info.apiGroup,
          version: info.apiVersion,
          resource: info.resource,
        });
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

const uncounted = (): void => {};

/**
 * What counts one event of a watch response, of `bytes` as encoded (a no-op when metrics are
 * off): taken once per watch, since a fan-out calls it once per event and watcher.
 */
export function watchEventRecorder(res: Response): (bytes: number) => void {
  return watchEventCounters.get(res) ?? uncounted;
}

type WatchLabels = { group: string; version: string; resource: string };

/** Events counted and not yet added to `apiserver_watch_events_total`, for one label set. */
interface WatchEventTally {
  readonly labels: WatchLabels;
  count: number;
}

/**
 * The watch event counts by label set, added to the counter before each scrape: a fan-out
 * counts once per event and watcher, and prom-client's `inc` checks and hashes the labels on
 * every call (about 0.2 µs, some fifty times this tally's increment).
 */
function watchEventTallies(metrics: ApiserverMetrics): Map<string, WatchEventTally> {
  const tallies = new Map<string, WatchEventTally>();
  metrics.addCollector(() => {
    for (const tally of tallies.values()) {
      if (tally.count === 0) continue;
      metrics.watchEventsTotal.inc(tally.labels, tally.count);
      tally.count = 0;
    }
  });
  return tallies;
}

function countWatchEvents(
  res: Response,
  metrics: ApiserverMetrics,
  tallies: Map<string, WatchEventTally>,
  labels: WatchLabels,
): void {
  // Taken at the first event, so that watches that never send one (refused, empty) add no label set.
  let tally: WatchEventTally | undefined;
  watchEventCounters.set(res, (bytes) => {
    if (tally === undefined) {
      const key = `${labels.group}/${labels.version}/${labels.resource}`;
      tally = tallies.get(key);
      if (tally === undefined) tallies.set(key, (tally = { labels, count: 0 }));
    }
    tally.count++;
    metrics.watchEventsSizes.observe(labels, bytes);
  });
}
