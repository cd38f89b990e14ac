/**
 * The handler chain, in execution order, as one Express handler (in-sequence.ts says why). Each
 * stage is its own module; resource handlers are mounted after the last stage and can rely on
 * `req.requestInfo`, `req.user` and `req.deadline` (see request-context.ts).
 */
import type { RequestHandler, Response } from 'express';
import type { Authenticator } from '../authn/types';
import { auditUnauthenticated, withAudit } from '../audit/with-audit';
import { withAuditId } from '../audit/with-audit-id';
import type { AuditPolicy } from '../audit/record/policy';
import type { EventSink } from '../audit/record/request-audit';
import type { Authorizer } from '../authz/types';
import type { ApiserverMetrics } from '../metrics/apiserver-metrics';
import { requestLabels } from '../metrics/request-labels';
import { withRequestMetrics, type DeprecatedApi } from '../metrics/with-request-metrics';
import { withInFlightTracking, type InFlightRequests } from './in-flight';
import { withAuthentication } from './with-authentication';
import { withAuthorization } from './with-authorization';
import { withImpersonation } from './with-impersonation';
import { withCacheControl } from './with-cache-control';
import { withInflightLimit } from './with-inflight-limit';
import { withPriorityAndFairness } from './with-priority-and-fairness';
import type { FlowControl } from '../flowcontrol/flow-control';
import { withRequestDeadline } from './with-request-deadline';
import { withRequestInfo } from './with-request-info';
import type { RequestInfo } from '../request/request-info';
import { withRequestTimeout } from './with-request-timeout';
import { postTimeoutLogLine } from '../handlers/post-timeout';
import { REQUEST_LOG_VERBOSITY, withRequestLog } from './with-request-log';
import { withStrictTransportSecurity } from './with-strict-transport-security';
import { withCors } from './with-cors';
import { withWarningRecorder } from './with-warning-recorder';

import { withProbabilisticGoaway } from './goaway';
import { inSequence } from './in-sequence';

export interface ChainOptions {
  readonly authenticator: Authenticator;
  readonly anonymous: (path: string) => boolean;
  readonly authorizer: Authorizer;
  readonly inFlight: InFlightRequests;
  readonly requestTimeoutMs: number;
  readonly metrics: ApiserverMetrics;
  /** `--max-requests-inflight` and `--max-mutating-requests-inflight`; 0: unlimited. */
  readonly maxRequestsInflight: number;
  readonly maxMutatingRequestsInflight: number;
  /** For `apiserver_requested_deprecated_apis`: whether a requested group-version-resource is deprecated. */
  readonly deprecatedApi?: (info: RequestInfo) => DeprecatedApi | undefined;
  /** `--audit-policy-file` and where its events go; absent: no audit stage at all. */
  readonly audit?: { readonly policy: AuditPolicy; readonly sink: EventSink };
  /** API Priority and Fairness; when given, it limits requests in place of the in-flight pools. */
  readonly flowControl?: FlowControl;
  /** `-v`: from 3 on, a line for every request (to `logWrite`, standard error by default). */
  readonly logVerbosity?: number;
  readonly logWrite?: (line: string) => void;
  /** `--cors-allowed-origins`: Go regular expressions an `Origin` is matched with; empty: no CORS. */
  readonly corsAllowedOrigins?: readonly string[];
  /** `--strict-transport-security-directives`; empty: no header. */
  readonly strictTransportSecurityDirectives?: readonly string[];
  /** `--goaway-chance`: the fraction of requests whose connection closes after the answer; 0: none. */
  readonly goawayChance?: number;
}

export function handlerChain(options: ChainOptions): RequestHandler {
  const { audit } = options;
  const goaway = withProbabilisticGoaway({ chance: options.goawayChance ?? 0 });
  return inSequence([
    // Outside everything else, as the reference's: an answer refused later still closes.
    ...(goaway ? [goaway] : []),
    withAuditId(),
    ...((options.logVerbosity ?? 0) >= REQUEST_LOG_VERBOSITY
      ? [withRequestLog({ write: options.logWrite ?? ((line) => process.stderr.write(line)) })]
      : []),
    withRequestInfo(),
    withRequestMetrics({ metrics: options.metrics, deprecatedApi: options.deprecatedApi }),
    withCacheControl(),
    ...(options.strictTransportSecurityDirectives?.length
      ? [withStrictTransportSecurity(options.strictTransportSecurityDirectives)]
      : []),
    withInFlightTracking({ inFlight: options.inFlight }),
    withRequestDeadline({ requestTimeoutMs: options.requestTimeoutMs }),
    withRequestTimeout({
      onTimeout: (res) => recordTermination(options.metrics, res),
      onPostTimeout: (activity) => {
        options.metrics.requestPostTimeouts.inc({ source: activity.source, status: activity.status });
        console.error(postTimeoutLogLine(activity));
      },
    }),
    withWarningRecorder(),
    // Before authentication, as the reference's: a browser's preflight carries no credentials.
    ...(options.corsAllowedOrigins?.length ? [withCors(options.corsAllowedOrigins)] : []),
    withAuthentication({
      authenticator: options.authenticator,
      anonymous: options.anonymous,
      onUnauthenticated:
        audit && auditUnauthenticated({ policy: audit.policy, sink: audit.sink, metrics: options.metrics }),
    }),
    // Before impersonation, as the reference's: the policy judges who authenticated.
    ...(audit
      ? [
          withAudit({
            policy: audit.policy,
            sink: audit.sink,
            metrics: options.metrics,
            deprecatedApi: options.deprecatedApi,
          }),
        ]
      : []),
    withImpersonation({ authorizer: options.authorizer }),
    options.flowControl
      ? withPriorityAndFairness({
          flowControl: options.flowControl,
          onRejected: (res) => recordTermination(options.metrics, res),
        })
      : withInflightLimit({
          maxReadOnly: options.maxRequestsInflight,
          maxMutating: options.maxMutatingRequestsInflight,
          onCountChange: (pool, inFlight) =>
            options.metrics.currentInflightRequests.set({ request_kind: pool }, inFlight),
          onRejected: (_pool, res) => recordTermination(options.metrics, res),
        }),
    withAuthorization({ authorizer: options.authorizer }),
  ]);
}

/** `apiserver_request_terminations_total`: requests the server answered in self-defense (429, 504). */
function recordTermination(metrics: ApiserverMetrics, res: Response): void {
  const req = res.req;
  metrics.requestTerminations.inc({
    ...requestLabels({
      info: req.requestInfo,
      method: req.method,
      rawQuery: req.rawQuery,
      contentType: req.headers['content-type'],
    }),
    code: String(res.statusCode),
  });
}
