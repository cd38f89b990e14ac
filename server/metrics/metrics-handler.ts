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
  /** How DELETE resets them; default: each metric of the registry but the process's own. */
  readonly reset?: () => void;
}

export function metricsHandler(endpoint: MetricsEndpoint): RequestHandler {
  const scrape = endpoint.scrape ?? (() => endpoint.registry.metrics());
  const reset = endpoint.reset ?? (() => resetMetrics(endpoint.registry));
  return (req, res, next) => {
    if (req.path !== endpoint.path) {
      next();
      return;
    }
    if (endpoint.resettable && req.method === 'DELETE') {
      reset();
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end('metrics reset\n');
      return;
    }
    scrape().then((text) => {
      if (!hasSamples(text)) {
        // The reference's gatherer drops families without samples, and its timeout filter sends
        // the handler's headers only with a body: an empty registry (reset, and nothing
        // recorded since) answers 200 with no body and no Content-Type.
        res.end();
        return;
      }
      // The reference's Prometheus library names how metric names were escaped to fit the text
      // format; capstan's names need none, which is what `underscores` says.
      res.setHeader('Content-Type', `${endpoint.registry.contentType}; escaping=underscores`);
      res.end(text);
    }, next);
  };
}

/** Whether a text exposition holds any sample: a line that is not a `#` comment. */
function hasSamples(text: string): boolean {
  return text.split('\n').some((line) => line !== '' && !line.startsWith('#'));
}

/**
 * Zeroes the server's own metrics, as the reference's registry resets its resettable ones. The
 * process and runtime figures (`process_*`, `nodejs_*`, the counterparts of Go's collectors,
 * which the reference never resets) are read from the process, not counted, and stay whole;
 * so do metrics that only answer at scrape time and have nothing to reset.
 */
export function resetMetrics(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray()) {
    const { name, reset } = metric as unknown as { name: string; reset?: unknown };
    if (name.startsWith('process_') || name.startsWith('nodejs_')) continue;
    if (typeof reset === 'function') (reset as () => void).call(metric);
  }
}
