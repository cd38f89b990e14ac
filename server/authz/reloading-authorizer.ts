/**
 * The chain of an `--authorization-config` file, rebuilt when the file changes (a watch on its
 * directory, since editors and config-map mounts replace files by rename) and every 60 s. A
 * file that does not parse, does not validate or cannot be built leaves the last good chain in
 * place; at start there is none, so the first load throws and the server does not start.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parseAuthorizationConfig, type AuthorizationConfig } from './authorization-config';
import { union } from './union';
import type { Authorizer } from './types';

export const RELOAD_INTERVAL_MS = 60_000;

export interface ReloadingAuthorizer extends Authorizer {
  /** Reads the file again now; true when a new chain took over. */
  reload(): boolean;
  stop(): void;
}

export interface ReloadingOptions {
  readonly path: string;
  readonly build: (config: AuthorizationConfig) => Authorizer[];
  /** Told why a changed file was not taken (the chain stays as it was). */
  readonly onRejected: (message: string) => void;
  /** Told when a changed file was taken. */
  readonly onReloaded?: () => void;
  readonly intervalMs?: number;
}

export function reloadingAuthorizer(options: ReloadingOptions): ReloadingAuthorizer {
  let text = readFileSync(options.path, 'utf8');
  let chain = union(options.build(parseAuthorizationConfig(text)));

  const reload = (): boolean => {
    let next: string;
    try {
      next = readFileSync(options.path, 'utf8');
    } catch (error) {
      options.onRejected(`unable to read ${options.path}: ${(error as Error).message}`);
      return false;
    }
    if (next === text) return false;
    try {
      chain = union(options.build(parseAuthorizationConfig(next)));
    } catch (error) {
      options.onRejected(`${options.path}: ${(error as Error).message}`);
      return false;
    } finally {
      // A rejected file is not read again until it changes once more.
      text = next;
    }
    options.onReloaded?.();
    return true;
  };

  let watcher: FSWatcher | undefined;
  try {
    const name = basename(options.path);
    watcher = watch(dirname(options.path), (_event, changed) => {
      if (changed === null || changed === name || changed.startsWith('..')) reload();
    });
    watcher.unref();
  } catch {
    // Without a watch the periodic reload still picks changes up.
  }
  const timer = setInterval(reload, options.intervalMs ?? RELOAD_INTERVAL_MS);
  timer.unref();

  return {
    authorize: (attributes) => chain.authorize(attributes),
    rulesFor: (user, namespace) => chain.rulesFor!(user, namespace),
    reload,
    stop() {
      clearInterval(timer);
      watcher?.close();
    },
  };
}
