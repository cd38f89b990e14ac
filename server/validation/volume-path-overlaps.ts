/**
 * Volumes whose items write two keys to one file, or one under another's path (the reference's
 * warningsForOverlappingVirtualPaths): the kubelet then fails with "is a directory" or "file
 * exists", or the later key silently wins, so the reference warns at write time.
 */

import { goQuote } from '../../api/go-quote';

interface Item {
  path?: string;
}

/** A path and what put it there, printed as the reference's pathAndSource. */
interface Placed {
  readonly path: string;
  readonly source: string;
}

function shown(placed: Placed): string {
  return placed.source === '' ? goQuote(placed.path) : `${goQuote(placed.path)} (${placed.source})`;
}

function withoutTrailingSlashes(path: string): string {
  return path.replace(/\/+$/, '');
}

/** The placed paths `needle` collides with: the same path and source, or one a directory of the other. */
function collisions(haystack: readonly Placed[], needle: Placed): Placed[] {
  if (needle.path === '') return [];
  return haystack.filter(
    (item) =>
      item.path !== '' &&
      ((item.path === needle.path && item.source === needle.source) ||
        `${item.path}/`.startsWith(`${needle.path}/`) ||
        `${needle.path}/`.startsWith(`${item.path}/`)),
  );
}

/** Adds `raw` to the paths `placed` so far: each collision, as `<new> with <earlier>`. */
function place(placed: Placed[], raw: Placed): string[] {
  const entry = { path: withoutTrailingSlashes(raw.path), source: raw.source };
  const overlaps = collisions(placed, entry).map((other) => `${shown(entry)} with ${shown(other)}`);
  placed.push(entry);
  return overlaps;
}

/** Each collision among `paths`, in order. */
function overlapsAmong(paths: readonly Placed[]): string[] {
  const placed: Placed[] = [];
  return paths.flatMap((raw) => place(placed, raw));
}

function placedItems(items: readonly Item[], source: string): Placed[] {
  return items.map((item) => ({ path: item.path ?? '', source }));
}

type Json = Record<string, unknown>;
interface ProjectedSource {
  configMap?: { name?: string; items?: Item[] };
  secret?: { name?: string; items?: Item[] };
  downwardAPI?: { items?: Item[] };
  serviceAccountToken?: { path?: string };
  clusterTrustBundle?: { name?: string; signerName?: string; path?: string };
  podCertificate?: { certificateChainPath?: string; keyPath?: string; credentialBundlePath?: string };
}

/** The paths one projected source writes, in the order the reference considers them. */
function projectedPaths(source: ProjectedSource): Placed[] {
  if (source.configMap?.items)
    return placedItems(source.configMap.items, `ConfigMap ${goQuote(source.configMap.name ?? '')}`);
  if (source.secret?.items) return placedItems(source.secret.items, `Secret ${goQuote(source.secret.name ?? '')}`);
  if (source.downwardAPI?.items) return placedItems(source.downwardAPI.items, 'DownwardAPI');
  if (source.serviceAccountToken)
    return [{ path: source.serviceAccountToken.path ?? '', source: 'ServiceAccountToken' }];
  if (source.clusterTrustBundle) {
    const bundle = source.clusterTrustBundle;
    const name = bundle.name ?? bundle.signerName ?? '';
    return [{ path: bundle.path ?? '', source: `ClusterTrustBundle ${goQuote(name)}` }];
  }
  if (source.podCertificate) {
    const certificate = source.podCertificate;
    return [
      { path: certificate.certificateChainPath ?? '', source: 'PodCertificate chain' },
      { path: certificate.keyPath ?? '', source: 'PodCertificate key' },
      { path: certificate.credentialBundlePath ?? '', source: 'PodCertificate credential bundle' },
    ].filter((placed) => placed.path !== '');
  }
  return [];
}

export function overlappingPathWarnings(volumes: readonly (Json & { name?: string })[]): string[] {
  return volumes.flatMap((volume) => {
    const warn = (description: string, body: string): string =>
      `volume ${goQuote(volume.name ?? '')} (${description}): overlapping paths: ${body}`;
    const warnings: string[] = [];
    const configMap = volume.configMap as { name?: string; items?: Item[] } | undefined;
    if (configMap?.items)
      warnings.push(
        ...overlapsAmong(placedItems(configMap.items, '')).map((body) =>
          warn(`ConfigMap ${goQuote(configMap.name ?? '')}`, body),
        ),
      );
    const secret = volume.secret as { secretName?: string; items?: Item[] } | undefined;
    if (secret?.items)
      warnings.push(
        ...overlapsAmong(placedItems(secret.items, '')).map((body) =>
          warn(`Secret ${goQuote(secret.secretName ?? '')}`, body),
        ),
      );
    const downwardAPI = volume.downwardAPI as { items?: Item[] } | undefined;
    if (downwardAPI?.items)
      warnings.push(...overlapsAmong(placedItems(downwardAPI.items, '')).map((body) => warn('DownwardAPI', body)));
    const projected = volume.projected as { sources?: ProjectedSource[] } | undefined;
    if (projected) {
      const placed: Placed[] = [];
      for (const source of projected.sources ?? []) {
        if (Object.keys(source ?? {}).length === 0) {
          warnings.push(`volume ${goQuote(volume.name ?? '')} (Projected) has no sources provided`);
          continue;
        }
        for (const raw of projectedPaths(source))
          warnings.push(...place(placed, raw).map((body) => warn('Projected', body)));
      }
    }
    return warnings;
  });
}
