/**
 * A container's log file as a container runtime writes it for the kubelet (the CRI log format:
 * `<RFC 3339 time> <stdout|stderr> <F|P> <text>` a line), which kwok reads back when asked for a
 * pod's log. Each start of the container begins a new file; the one before is kept as the
 * previous instance's log (`kubectl logs --previous`).
 *
 *   const log = new CriLog('/pods/<uid>/logs/app.log');
 *   log.start();
 *   child.stdout.on('data', log.writer('stdout'));
 *   child.on('exit', () => log.end());
 */
import { appendFileSync, existsSync, renameSync, writeFileSync } from 'node:fs';

type Stream = 'stdout' | 'stderr';

export class CriLog {
  /** What each stream wrote after its last newline: a line is written whole, as a runtime tags it complete (F). */
  private readonly pending: Record<Stream, string> = { stdout: '', stderr: '' };

  /** Where the previous instance's log is kept: beside this one, `<name>.previous.log`. */
  readonly previousPath: string;

  constructor(readonly path: string) {
    this.previousPath = path.replace(/(\.log)?$/, '.previous.log');
  }

  /** A new instance's file (empty); the last instance's becomes the previous one. */
  start(): void {
    if (existsSync(this.path)) renameSync(this.path, this.previousPath);
    writeFileSync(this.path, '');
    this.pending.stdout = this.pending.stderr = '';
  }

  /** Takes what `stream` wrote, as it comes. */
  writer(stream: Stream): (chunk: Buffer) => void {
    return (chunk) => {
      const lines = (this.pending[stream] + chunk.toString()).split('\n');
      this.pending[stream] = lines.pop() ?? '';
      this.append(stream, lines);
    };
  }

  /** The instance ended: a last line without its newline is written too. */
  end(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.pending[stream] !== '') this.append(stream, [this.pending[stream]]);
      this.pending[stream] = '';
    }
  }

  private append(stream: Stream, lines: readonly string[]): void {
    if (lines.length === 0) return;
    const time = new Date().toISOString();
    appendFileSync(this.path, lines.map((line) => `${time} ${stream} F ${line}\n`).join(''));
  }
}
