/**
 * `/statusz` with ComponentStatusz on (alpha, off by default): when this process started, how
 * long it has been up, its runtime and versions, and the top-level paths it serves, in the
 * reference's fields. capstan's honest counterparts fill them: the Node.js runtime stands where
 * the reference names its Go toolchain (as `/version`'s goVersion does), the binary version is
 * capstan's own Kubernetes release with its build tag, the emulation version the one release it
 * emulates. The paths are those of `/` folded to their first segment, less the API, OpenAPI and
 * discovery paths the reference leaves out as not for debugging.
 */
import type { RequestHandler } from 'express';
import { randomDelimiter, sendZpage, zpageBanner } from './zpage';

export const STATUSZ_PATH = '/statusz';

const NOT_FOR_DEBUGGING: ReadonlySet<string> = new Set(['/apis', '/api', '/openid', '/openapi', '/.well-known']);

export interface StatuszFacts {
  /** When the process started, ms since the epoch. */
  readonly startedAt: number;
  readonly runtimeVersion: string;
  readonly binaryVersion: string;
  readonly emulationVersion: string;
  readonly listedPaths: () => readonly string[];
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** Go's time.UnixDate layout (`Mon Jan _2 15:04:05 MST 2006`) in the process's time zone, to the second. */
function unixDate(ms: number): string {
  const at = new Date(ms);
  const zone =
    new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' })
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'UTC';
  const day = String(at.getDate()).padStart(2, ' ');
  const time = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
  return `${DAYS[at.getDay()]} ${MONTHS[at.getMonth()]} ${day} ${time} ${zone} ${at.getFullYear()}`;
}

function uptime(seconds: number): string {
  return `${Math.floor(seconds / 3600)} hr ${two(Math.floor(seconds / 60) % 60)} min ${two(seconds % 60)} sec`;
}

function foldedPaths(listed: readonly string[]): string {
  const folders = new Set(
    listed.map((path) => `/${path.split('/')[1]}`).filter((path) => !NOT_FOR_DEBUGGING.has(path)),
  );
  return [...folders]
    .sort()
    .map((path) => ` ${path}`)
    .join('');
}

export function statuszHandler(componentName: string, facts: StatuszFacts): RequestHandler {
  // Whole seconds, as the reference reads its process's start time.
  const started = Math.floor(facts.startedAt / 1000) * 1000;
  const render = () => {
    const d = randomDelimiter();
    const paths = foldedPaths(facts.listedPaths());
    const lines = [
      '',
      `Started${d} ${unixDate(started)}`,
      `Up${d} ${uptime(Math.floor((Date.now() - started) / 1000))}`,
      `Go version${d} ${facts.runtimeVersion}`,
      `Binary version${d} ${facts.binaryVersion}`,
      `Emulation version${d} ${facts.emulationVersion}`,
      paths === '' ? '' : `Paths${d} ${paths}`,
      '',
    ];
    return `${zpageBanner(`${componentName} statusz`)}${lines.join('\n')}`;
  };
  return (req, res, next) => {
    if (req.path !== STATUSZ_PATH) return next();
    sendZpage(req, res, render);
  };
}
