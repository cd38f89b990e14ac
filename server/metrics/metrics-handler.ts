/**
 * `GET /metrics`: the Prometheus text exposition. A non-resource path like any other: the
 * chain's authorizer decides who may read it (the reference grants it to `system:masters` and
 * to whom RBAC gives `get` on the non-resource URL `/metrics`).
 */
import type { RequestHandler } from 'express';
import type { ApiserverMetrics } from './apiserver-metrics';

export const METRICS_PATH = '/metrics';

export function metricsHandler(metrics: ApiserverMetrics): RequestHandler {
  return (req, res, next) => {
    // A route of the reference's mux: any method is served as GET is.
    if (req.path !== METRICS_PATH) {
      next();
      return;
    }
    metrics.scrape().then((text) => {
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.end(text);
    }, next);
  };
}
