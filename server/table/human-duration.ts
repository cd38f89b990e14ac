/**
 * Ages as the reference's printers write them (`5s`, `3m12s`, `2d4h`, `3y20d`): seconds
 * under two minutes, then ever coarser units, `<invalid>` for times more than a second ahead
 * and `<unknown>` for absent ones.
 */

export function humanDuration(milliseconds: number): string {
  const seconds = Math.trunc(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const rest = seconds % 60;
    return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const rest = minutes % 60;
    return rest === 0 ? `${hours}h` : `${hours}h${rest}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const rest = hours % 24;
    return rest === 0 ? `${days}d` : `${days}d${rest}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const rest = days % 365;
    return rest === 0 ? `${years}y` : `${years}y${rest}d`;
  }
  return `${years}y`;
}

/** The age of a timestamp at `now`, `<unknown>` when there is none. */
export function ageSince(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(now.getTime() - at);
}

/** The Age column of a printed object: the time since its creationTimestamp. */
export function ageOf(object: { readonly metadata: { readonly creationTimestamp?: unknown } }, now: Date): string {
  return ageSince(object.metadata.creationTimestamp, now);
}
