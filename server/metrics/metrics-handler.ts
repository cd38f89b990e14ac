/**
 * `/metrics` and `/metrics/slis`: Prometheus text expositions. Non-resource paths like any
 * other: the chain's authorizer decides who may read them (the reference grants them to
 * `system:masters` and to whom RBAC gives the non-resource URL).
 *
 * Routes of the reference's mux, so any method is served as GET is; but with `--profiling`
 * (its default) the reference installs them with reset, and DELETE then zeroes the metrics.
 */
import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';

export const METRICS_PATH = '/metrics';
export const SLI_METRICS_PATH = '/metrics/slis';

export interface MetricsEndpoint {
  readonly path: string;
  readonly registry: Registry;
  /** The text exposition; default: the registry's. */
  readonly scrape?: () => Promise<string>;
  /** DELETE resets the registry's metrics (the reference's `--profiling`). */
  readonly resettable: boolean;
}

export function metricsHandler(endpoint: MetricsEndpoint): RequestHandler {
  const scrape = endpoint.scrape ?? (() => endpoint.registry.metrics());
  return (req, res, next) => {
    if (req.path !== endpoint.path) {
      next();
      return;
    }
    if (endpoint.resettable && req.method === 'DELETE') {
      resetMetrics(endpoint.registry);
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end('metrics reset\n');
      return;
    }
    scrape().then((text) => {
      // The reference's Prometheus library names how metric names were escaped to fit the text
      // format; capstan's names need none, which is what `underscores` says.
      res.setHeader('Content-Type', `${endpoint.registry.contentType}; escaping=underscores`);
      res.end(text);
    }, next);
  };
}

/**
 * Zeroes the server's own metrics, as the reference's registry resets its resettable ones. The
 * process and runtime figures (`process_*`, `nodejs_*`, the counterparts of Go's collectors,
 * which the reference never resets) are read from the process, not counted, and stay whole;
 * so do metrics that only answer at scrape time and have nothing to reset.
 */
function resetMetrics(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray()) {
    const { name, reset } = metric as unknown as { name: string; reset?: unknown };
    if (name.startsWith('process_') || name.startsWith('nodejs_')) continue;
    if (typeof reset === 'function') (reset as () => void).call(metric);
  }
}
