/**
 * Stage: at `-v=3` and above every request is logged when its answer is done, one line each, as
 * the reference's httplog writes them at that verbosity (`"HTTP" verb=... URI=... latency=...
 * userAgent=... audit-ID=... srcIP=... resp=...`), in klog's header format, so an operator's
 * log tooling reads capstan's the same. Below that level the stage is not in the chain at all.
 */
import type { RequestHandler } from 'express';
import '../request/request-context';
import { goDuration } from '../config/duration';

/** The verbosity from which the reference logs every request. */
export const REQUEST_LOG_VERBOSITY = 3;

export function withRequestLog(options: { readonly write: (line: string) => void }): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const latency = goDuration(Number(process.hrtime.bigint() - started));
      const fields = [
        `verb=${JSON.stringify(req.method)}`,
        `URI=${JSON.stringify(req.originalUrl)}`,
        `latency=${JSON.stringify(latency)}`,
        `userAgent=${JSON.stringify(req.headers['user-agent'] ?? '')}`,
        `audit-ID=${JSON.stringify(req.auditID ?? '')}`,
        `srcIP=${JSON.stringify(`${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`)}`,
        `resp=${res.statusCode}`,
      ];
      options.write(`${klogHeader(new Date())} httplog.go:134] "HTTP" ${fields.join(' ')}\n`);
    });
    next();
  };
}

/** `I1128 03:50:00.123456   12345 ` as klog starts an info line. */
function klogHeader(now: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const micros = String(now.getUTCMilliseconds() * 1000).padStart(6, '0');
  return `I${two(now.getUTCMonth() + 1)}${two(now.getUTCDate())} ${two(now.getUTCHours())}:${two(now.getUTCMinutes())}:${two(now.getUTCSeconds())}.${micros} ${String(process.pid).padStart(7)}`;
}
