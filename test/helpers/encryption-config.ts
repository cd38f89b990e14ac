/**
 * EncryptionConfiguration files for `--encryption-provider-config`, the same file for capstan and
 * the reference kube-apiserver. A rule lists resources and their providers: the first provider
 * writes, every one reads.
 *
 *   const file = writeEncryptionConfiguration(join(dir, 'encryption.yaml'), [
 *     { resources: ['secrets'], providers: [{ aescbc: { keys: [{ name: 'key1', secret }] } }, IDENTITY] },
 *   ]);
 */
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

export interface EncryptionKey {
  readonly name: string;
  /** Base64 of the key's bytes. */
  readonly secret: string;
}

interface Keys {
  readonly keys: readonly EncryptionKey[];
}

/** One provider, with the fields the file gives it (KMS: name, endpoint, apiVersion, cachesize, timeout). */
export type EncryptionProvider =
  | { readonly aescbc: Keys }
  | { readonly aesgcm: Keys }
  | { readonly secretbox: Keys }
  | { readonly identity: Record<string, never> }
  | { readonly kms: Readonly<Record<string, string | number>> };

export interface EncryptionRule {
  readonly resources: readonly string[];
  readonly providers: readonly EncryptionProvider[];
}

/** Values stored as they are; last in a rule, it reads what was written before encryption. */
export const IDENTITY: EncryptionProvider = { identity: {} };

/** The file's text (YAML) for these rules. */
export function encryptionConfiguration(rules: readonly EncryptionRule[]): string {
  return stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: rules });
}

/** Writes the rules to `file`; answers `file`. */
export function writeEncryptionConfiguration(file: string, rules: readonly EncryptionRule[]): string {
  writeFileSync(file, encryptionConfiguration(rules));
  return file;
}
