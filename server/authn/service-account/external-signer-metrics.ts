/**
 * The reference's `apiserver_externaljwt_*` metrics, with its names, help, labels and buckets:
 * every call to the signer timed by method and gRPC code, every FetchKeys and token signing
 * counted by outcome, and when the last key fetch succeeded and what data timestamp it carried.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { grpcStatusLabel } from '../../../storage/grpc/unix-client';

export interface ExternalSignerMetrics {
  /** One gRPC call to the signer; `method` is the full path (`/v1.ExternalJWTSigner/Sign`). */
  recordCall(method: string, seconds: number, error: unknown): void;
  /** One FetchKeys sync; `dataTimestampSeconds` when it succeeded. */
  recordKeyFetch(error: unknown, dataTimestampSeconds?: number): void;
  recordSign(error: unknown): void;
}

export function externalSignerMetrics(registry: Registry): ExternalSignerMetrics {
  const registers = [registry];
  const lastFetch = new Gauge({
    name: 'apiserver_externaljwt_fetch_keys_success_timestamp',
    help: 'Unix Timestamp in seconds of the last successful FetchKeys request',
    registers,
  });
  const dataTimestamp = new Gauge({
    name: 'apiserver_externaljwt_fetch_keys_data_timestamp',
    help: 'Unix Timestamp in seconds of the last successful FetchKeys data_timestamp value returned by the external signer',
    registers,
  });
  const fetches = new Counter({
    name: 'apiserver_externaljwt_fetch_keys_request_total',
    help: 'Total attempts at syncing supported JWKs',
    labelNames: ['code'],
    registers,
  });
  const signs = new Counter({
    name: 'apiserver_externaljwt_sign_request_total',
    help: 'Total attempts at signing JWT',
    labelNames: ['code'],
    registers,
  });
  const durations = new Histogram({
    name: 'apiserver_externaljwt_request_duration_seconds',
    help: 'Request duration and time for calls to external-jwt-signer',
    labelNames: ['method', 'code'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  return {
    recordCall: (method, seconds, error) => durations.observe({ method, code: grpcStatusLabel(error) }, seconds),
    recordKeyFetch(error, dataTimestampSeconds) {
      fetches.inc({ code: grpcStatusLabel(error) });
      if (error !== undefined) return;
      lastFetch.set(Date.now() / 1000);
      if (dataTimestampSeconds !== undefined) dataTimestamp.set(dataTimestampSeconds);
    },
    recordSign: (error) => signs.inc({ code: grpcStatusLabel(error) }),
  };
}
