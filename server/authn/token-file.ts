/**
 * `--token-auth-file`: a CSV of `token,user,uid[,"group1,group2"]`, read once at start (the
 * reference needs a restart to change it too). As in the reference, the fourth column holds
 * every group, comma-separated, and a later line with the same token wins.
 */
import { readFileSync } from 'node:fs';
import type { TokenAuthenticator } from './types';
import type { UserInfo } from '../../api/user-info';

export function parseTokenFile(
  path: string,
  text: string,
  warn: (message: string) => void = () => {},
): Map<string, UserInfo> {
  // Loaded here, not at start: only a server given --token-auth-file needs a CSV parser.
  const { parse } = require('csv-parse/sync') as typeof import('csv-parse/sync');
  const records = parse(text, { relax_column_count: true, skip_empty_lines: true, relax_quotes: false }) as string[][];
  const tokens = new Map<string, UserInfo>();
  records.forEach((record, index) => {
    if (record.length < 3) {
      throw new Error(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      );
    }
    const [token, name, uid, groups] = record;
    if (token === '') {
      warn(`empty token has been found in token file '${path}', record number '${index + 1}'`);
      return;
    }
    if (tokens.has(token)) warn(`duplicate token has been found in token file '${path}', record number '${index + 1}'`);
    tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(',') });
  });
  return tokens;
}

export function tokenFileAuthenticator(path: string): TokenAuthenticator {
  const tokens = parseTokenFile(path, readFileSync(path, 'utf8'), (message) => console.warn(message));
  return {
    authenticateToken(token) {
      const user = tokens.get(token);
      return user === undefined ? undefined : { user };
    },
  };
}
