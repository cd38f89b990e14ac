/**
 * `/debug/pprof/` with `--profiling` (on by default, as in the reference): profiles of this
 * process in pprof's format, read with `go tool pprof` or `kubectl get --raw`. Non-resource
 * paths like any other: the chain authenticates and authorizes them (system:masters, or RBAC's
 * `get` on the non-resource URL), as the reference does. Go's pprof handlers serve any method.
 *
 * Node.js is not Go, so what is served is what V8 measures, under the reference's paths:
 *
 * - `profile?seconds=N` (default 30): a CPU profile, V8's sampling profiler over N seconds.
 * - `heap?seconds=N` (default 30): what allocations sampled during N seconds still hold at the
 *   end. V8 keeps no allocation stacks unless sampling runs, and running it always would cost
 *   every request something, so the window is the request's.
 * - Go's other profiles (goroutine, threadcreate, block, mutex, allocs, trace, symbol) have no
 *   V8 counterpart: 404 `Unknown profile`, as Go answers a name it does not know.
 *
 * One profile at a time, as Go allows one CPU profile: a second meanwhile is answered 500 with
 * Go's words. The inspector session lives for the request only, and the inspector and the
 * encoder are loaded on the first profile: an idle server never loads them.
 */
import type { RequestHandler, Response } from 'express';
import type { Session } from 'node:inspector/promises';
import { pprofIndexPage } from './pprof-index';
import type { V8CpuProfile, V8HeapNode } from './pprof-encoding';

export const PPROF_PATH = '/debug/pprof/';
const DEFAULT_SECONDS = 30;
/** V8's own default sampling interval for CPU profiles. */
const CPU_INTERVAL_MICROS = 1000;
/** Go's MemProfileRate: one sample per 512 KiB allocated. */
const HEAP_INTERVAL_BYTES = 512 * 1024;

const SERVED: Readonly<Record<string, string>> = {
  profile:
    'CPU profile. You can specify the duration in the seconds GET parameter. After you get the profile file, use the go tool pprof command to investigate the profile.',
  heap: "Sampled allocations still held at the end of the seconds GET parameter's window (V8's sampling heap profiler).",
};

function plain(res: Response, status: number, text: string): void {
  res.status(status).setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(text);
}

function secondsOf(value: unknown): number | undefined {
  if (value === undefined) return DEFAULT_SECONDS;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) <= 0) return undefined;
  return Number(value);
}

function sendProfile(res: Response, name: string, profile: Buffer): void {
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(profile);
}

export function pprofHandler(): RequestHandler {
  let busy = false;
  const profiled = async (
    res: Response,
    seconds: number,
    run: (session: Session, wait: () => Promise<void>) => Promise<Buffer>,
    name: string,
  ) => {
    if (busy) return plain(res, 500, 'Could not enable CPU profiling: cpu profiling already in use\n');
    busy = true;
    let session: Session | undefined;
    let closed = false;
    res.once('close', () => (closed = true));
    try {
      const { Session } = await import('node:inspector/promises');
      session = new Session();
      session.connect();
      const wait = () =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, seconds * 1000);
          res.once('close', () => (clearTimeout(timer), resolve()));
        });
      const profile = await run(session, wait);
      if (!closed) sendProfile(res, name, profile);
    } finally {
      session?.disconnect();
      busy = false;
    }
  };
  return (req, res, next) => {
    if (req.path === '/debug/pprof') return res.redirect(301, PPROF_PATH);
    if (!req.path.startsWith(PPROF_PATH)) return next();
    const name = req.path.slice(PPROF_PATH.length);
    if (name === '') {
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(pprofIndexPage(Object.entries(SERVED).map(([profile, description]) => ({ name: profile, description }))));
      return;
    }
    if (!(name in SERVED)) return plain(res, 404, 'Unknown profile\n');
    const seconds = secondsOf(req.query.seconds);
    if (seconds === undefined) return plain(res, 400, 'Bad Request: invalid value for "seconds"\n');
    const failed = (error: unknown) =>
      res.headersSent ? res.destroy() : plain(res, 500, `Could not write the profile: ${(error as Error).message}\n`);
    if (name === 'profile') {
      profiled(
        res,
        seconds,
        async (session, wait) => {
          await session.post('Profiler.enable');
          await session.post('Profiler.setSamplingInterval', { interval: CPU_INTERVAL_MICROS });
          await session.post('Profiler.start');
          await wait();
          const { profile } = (await session.post('Profiler.stop')) as { profile: V8CpuProfile };
          const { cpuProfileData, encodePprof } = await import('./pprof-encoding');
          return encodePprof(cpuProfileData(profile, CPU_INTERVAL_MICROS));
        },
        'profile',
      ).catch(failed);
      return;
    }
    profiled(
      res,
      seconds,
      async (session, wait) => {
        const started = process.hrtime.bigint();
        await session.post('HeapProfiler.enable');
        await session.post('HeapProfiler.startSampling', { samplingInterval: HEAP_INTERVAL_BYTES });
        await wait();
        const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: V8HeapNode } };
        const { encodePprof, heapProfileData } = await import('./pprof-encoding');
        return encodePprof(
          heapProfileData(profile.head, Number(process.hrtime.bigint() - started), HEAP_INTERVAL_BYTES),
        );
      },
      'heap',
    ).catch(failed);
  };
}
