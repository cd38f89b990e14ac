/**
 * `/livez`, `/readyz`, `/healthz` and one path per check (`/readyz/etcd`), with the reference's
 * texts: `?verbose` lists `[+]<name> ok` lines and a summary, `?exclude=<name>` skips a check,
 * a failure lists every check and ends with `<endpoint> check failed` (status 500), hiding
 * reasons; a single check's path shows its reason.
 */
import type { RequestHandler, Response } from 'express';
import type { HealthCheck } from './checks';
import '../request/request-context';

export interface HealthEndpoints {
  readonly livez: readonly HealthCheck[];
  readonly readyz: readonly HealthCheck[];
  readonly healthz: readonly HealthCheck[];
}

type EndpointName = keyof HealthEndpoints;

/** Every path served: each endpoint and one per check, for the server's index. */
export function healthPaths(endpoints: HealthEndpoints): string[] {
  return Object.entries(endpoints).flatMap(([endpoint, checks]: [string, readonly HealthCheck[]]) => [
    `/${endpoint}`,
    ...checks.map((check) => `/${endpoint}/${check.name}`),
  ]);
}

/** Told each result of a whole endpoint's run (the health check metrics). */
export type HealthcheckObserver = (check: string, endpoint: EndpointName, passed: boolean) => void;

/** Serves the health paths; passes every other request on. */
export function healthHandler(endpoints: HealthEndpoints, observe?: HealthcheckObserver): RequestHandler {
  return (req, res, next) => {
    const path = req.requestInfo.path;
    const slash = path.indexOf('/', 1);
    const endpoint = (slash < 0 ? path.slice(1) : path.slice(1, slash)) as EndpointName;
    const checks = Object.hasOwn(endpoints, endpoint) ? endpoints[endpoint] : undefined;
    if (checks === undefined || req.requestInfo.isResourceRequest) {
      next();
      return;
    }
    if (slash < 0) {
      runAll({ endpoint, checks, query: new URLSearchParams(req.rawQuery), res, observe }).catch(next);
      return;
    }
    const check = checks.find((candidate) => candidate.name === path.slice(slash + 1));
    if (check === undefined) {
      next();
      return;
    }
    runOne(check, res).catch(next);
  };
}

async function runAll(run: {
  endpoint: EndpointName;
  checks: readonly HealthCheck[];
  query: URLSearchParams;
  res: Response;
  observe: HealthcheckObserver | undefined;
}) {
  const { endpoint, checks, query, res, observe } = run;
  const excluded = new Set(query.getAll('exclude'));
  let output = '';
  let failed = false;
  for (const check of checks) {
    if (excluded.delete(check.name)) {
      output += `[+]${check.name} excluded: ok\n`;
      continue;
    }
    const passed = (await failure(check)) === undefined;
    observe?.(check.name, endpoint, passed);
    if (passed) {
      output += `[+]${check.name} ok\n`;
    } else {
      // The full output is public: reasons stay on the per-check paths.
      output += `[-]${check.name} failed: reason withheld\n`;
      failed = true;
    }
  }
  if (excluded.size > 0) {
    const names = [...excluded].sort().map((name) => JSON.stringify(name));
    output += `warn: some health checks cannot be excluded: no matches for ${names.join(',')}\n`;
  }
  if (failed) {
    sendText(res, 500, `${output}${endpoint} check failed\n`);
  } else if (query.has('verbose')) {
    sendText(res, 200, `${output}${endpoint} check passed\n`);
  } else {
    sendText(res, 200, 'ok');
  }
}

async function runOne(check: HealthCheck, res: Response) {
  const reason = await failure(check);
  if (reason === undefined) sendText(res, 200, 'ok');
  else sendText(res, 500, `internal server error: ${reason}\n`);
}

/** The failure's message, or undefined when the check passes. */
async function failure(check: HealthCheck): Promise<string | undefined> {
  try {
    await check.check();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function sendText(res: Response, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(body);
}
