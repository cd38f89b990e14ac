/**
 * `--authentication-config` kept current: the file is polled for changes (editors and
 * mounted ConfigMaps replace it rather than write it in place, which polling sees), a good new
 * version replaces the jwt authenticators and the anonymous rules at once, and a bad one is
 * logged and ignored so the last good configuration stays. The reference's metrics say when
 * the last reload happened and how it went.
 */
import { createHash } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { Registry } from 'prom-client';
import { automaticReloadMetrics } from '../metrics/reload-metrics';
import { audienceAgnostic } from './audiences';
import { parseAuthenticationConfig, type AnonymousConfig, type AuthenticationConfig } from './authentication-config';
import { tokenUnion } from './bearer-token';
import { jwtAuthenticator } from './jwt-authenticator';
import type { TokenAuthenticator } from './types';

const POLL_INTERVAL_MS = 1000;

export interface LiveAuthenticationConfig {
  /** The jwt authenticators of the current configuration. */
  readonly tokens: TokenAuthenticator;
  /** The current anonymous section. */
  anonymous(): AnonymousConfig | undefined;
  stop(): void;
}

export interface LiveConfigOptions {
  readonly path: string;
  readonly serviceAccountIssuers: readonly string[];
  readonly apiAudiences: readonly string[];
  readonly registry?: Registry;
  /** Identifies this server in the metrics' `apiserver_id_hash`. */
  readonly serverId: string;
  readonly log?: (message: string) => void;
}

function authenticatorsOf(config: AuthenticationConfig, apiAudiences: readonly string[]): TokenAuthenticator {
  return tokenUnion(config.jwt.map((jwt) => audienceAgnostic(apiAudiences, jwtAuthenticator(jwt))));
}

/** Loads the file (a bad one throws: the server does not start) and follows its changes. */
export function liveAuthenticationConfig(options: LiveConfigOptions): LiveAuthenticationConfig {
  const log = options.log ?? ((message: string) => console.error(message));
  const load = (text: string) =>
    parseAuthenticationConfig(text, { path: options.path, serviceAccountIssuers: options.serviceAccountIssuers });
  let text = readFileSync(options.path, 'utf8');
  let config = load(text);
  let tokens = authenticatorsOf(config, options.apiAudiences);

  const idHash = `sha256:${createHash('sha256').update(options.serverId).digest('hex')}`;
  const record = automaticReloadMetrics({
    config: 'authentication_config',
    reloadsHelp:
      'Total number of automatic reloads of authentication configuration split by status and apiserver identity.',
    lastTimestampHelp:
      'Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.',
    apiserverIdHash: idHash,
    registers: options.registry ? [options.registry] : [],
  });

  const reload = () => {
    let next: string;
    try {
      next = readFileSync(options.path, 'utf8');
    } catch (error) {
      log(`authentication config reload: ${(error as Error).message}; keeping the last good configuration`);
      record('failure');
      return;
    }
    if (next === text) return;
    text = next;
    try {
      config = load(next);
      tokens = authenticatorsOf(config, options.apiAudiences);
      record('success');
    } catch (error) {
      log(`authentication config reload: ${(error as Error).message}; keeping the last good configuration`);
      record('failure');
    }
  };
  watchFile(options.path, { interval: POLL_INTERVAL_MS, persistent: false }, reload);

  return {
    tokens: { authenticateToken: (token, audiences) => tokens.authenticateToken(token, audiences) },
    anonymous: () => config.anonymous,
    stop: () => unwatchFile(options.path, reload),
  };
}
