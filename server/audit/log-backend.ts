/**
 * The log backend (`--audit-log-path`): one event a line, JSON (audit.k8s.io/v1 Event, the
 * default) or the reference's one-line legacy text, to standard output (`-`) or to a file that
 * is rotated as the reference's (lumberjack) rotates it: past `--audit-log-maxsize` MB (100 when
 * 0), the file is renamed `<name>-<UTC time>.<ext>` (gzipped with `--audit-log-compress`), and
 * backups beyond `--audit-log-maxbackup` or older than `--audit-log-maxage` days are removed.
 * rotating-file-stream does the writing and renaming; the retention by age and count is
 * lumberjack's and done here, because that library counts files and not their age.
 */
import { closeSync, mkdirSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { RotatingFileStream } from 'rotating-file-stream';
import type { AuditBackend } from './audit-backend';
import { goJson, type AuditEvent } from './record/event';

export type AuditLogFormat = 'json' | 'legacy';

export interface LogBackendOptions {
  /** `-` for standard output. */
  readonly path: string;
  readonly format: AuditLogFormat;
  /** 0: lumberjack's default, 100. */
  readonly maxSizeMB: number;
  /** 0: no limit. */
  readonly maxBackups: number;
  /** 0: no limit. */
  readonly maxAgeDays: number;
  readonly compress: boolean;
}

const DEFAULT_MAX_SIZE_MB = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

export function eventLine(event: AuditEvent, format: AuditLogFormat): string {
  return format === 'json' ? `${goJson(event)}\n` : `${legacyLine(event)}\n`;
}

/**
 * Opens (creating its directory and the file, as the reference does before it serves) the log;
 * a path that cannot be written fails the start.
 */
export function openLogBackend(options: LogBackendOptions): AuditBackend {
  if (options.path === '-') return streamBackend(process.stdout, options.format, async () => {});
  mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
  closeSync(openSync(options.path, 'a', 0o600));
  const stem = basename(options.path, extname(options.path));
  const ext = extname(options.path);
  const directory = dirname(options.path);
  // Loaded here, not at start: only a server given --audit-log-path writes a rotated file.
  const { createStream } = require('rotating-file-stream') as typeof import('rotating-file-stream');
  const stream = createStream(
    (time, index) => (time === null ? basename(options.path) : backupName(stem, ext, time, index, options.compress)),
    {
      path: `${directory}/`,
      size: `${options.maxSizeMB || DEFAULT_MAX_SIZE_MB}M`,
      mode: 0o600,
      ...(options.compress ? { compress: 'gzip' as const } : {}),
    },
  );
  stream.on('rotated', () => removeOldBackups(directory, stem, ext, options));
  // Write failures surface through each write's callback; the stream must not crash the process.
  stream.on('error', () => {});
  return streamBackend(stream, options.format, () => new Promise((resolve) => stream.end(resolve)));
}

function streamBackend(
  stream: NodeJS.WritableStream | RotatingFileStream,
  format: AuditLogFormat,
  close: () => Promise<void>,
): AuditBackend {
  return {
    name: 'log',
    // One write per event: the rotating stream checks its size after each write, so a file
    // passes --audit-log-maxsize by at most one event, however many a batch holds.
    send: (events) =>
      Promise.all(
        events.map(
          (event) =>
            new Promise<void>((resolve, reject) =>
              stream.write(eventLine(event, format), (error?: Error | null) => (error ? reject(error) : resolve())),
            ),
        ),
      ).then(() => undefined),
    close,
  };
}

/** lumberjack's backup name: `audit-2006-01-02T15-04-05.000.log`. */
function backupName(
  stem: string,
  ext: string,
  time: number | Date,
  index: number | undefined,
  compress: boolean,
): string {
  const stamp = new Date(time).toISOString().slice(0, 23).replace(/:/g, '-');
  // A second rotation within the same millisecond needs a name of its own.
  const suffix = index !== undefined && index > 1 ? `-${index}` : '';
  return `${stem}-${stamp}${suffix}${ext}${compress ? '.gz' : ''}`;
}

const BACKUP_STAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})/;

/** The backups of the log, newest first, with the time their name carries. */
function backups(directory: string, stem: string, ext: string): { file: string; time: number }[] {
  const found: { file: string; time: number }[] = [];
  for (const file of readdirSync(directory)) {
    if (!file.startsWith(`${stem}-`)) continue;
    const rest = file.slice(stem.length + 1);
    const match = BACKUP_STAMP.exec(rest);
    if (!match || !rest.includes(ext)) continue;
    found.push({ file, time: Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`) });
  }
  return found.sort((a, b) => b.time - a.time);
}

function removeOldBackups(directory: string, stem: string, ext: string, options: LogBackendOptions): void {
  const oldest = options.maxAgeDays > 0 ? Date.now() - options.maxAgeDays * DAY_MS : -Infinity;
  for (const [index, { file, time }] of backups(directory, stem, ext).entries()) {
    const tooMany = options.maxBackups > 0 && index >= options.maxBackups;
    if (!tooMany && time >= oldest) continue;
    try {
      unlinkSync(join(directory, file));
    } catch {
      // Already gone: another rotation removed it.
    }
  }
}

/** The reference's legacy line (audit.EventString). */
function legacyLine(event: AuditEvent): string {
  const quoteAll = (values: readonly string[]) => values.map((value) => JSON.stringify(value)).join(',');
  const username = event.user.username || '<none>';
  const groups = event.user.username && event.user.groups?.length ? quoteAll(event.user.groups) : '<none>';
  const as = event.impersonatedUser ? (event.impersonatedUser.username ?? '') : '<self>';
  const asGroups = event.impersonatedUser?.groups ? quoteAll(event.impersonatedUser.groups) : '<lookup>';
  const fields: [string, string][] = [
    ['id', event.auditID],
    ['stage', event.stage],
    ['ip', event.sourceIPs[0] ?? '<unknown>'],
    ['method', event.verb],
    ['user', username],
    ['groups', groups],
    ['as', as],
    ['asgroups', asGroups],
    ['user-agent', event.userAgent ?? ''],
    ['namespace', event.objectRef?.namespace || '<none>'],
    ['uri', event.requestURI],
  ];
  const response = event.responseStatus ? String(event.responseStatus.code) : '<deferred>';
  // Go's RFC3339Nano drops trailing zeros of the fraction.
  const received = event.requestReceivedTimestamp.replace(/\.?0+Z$/, 'Z');
  return `${received} AUDIT: ${fields.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(' ')} response="${response}"`;
}
