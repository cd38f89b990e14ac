/**
 * The OpenAPI documents of extension API servers, as the reference's OpenAPI aggregation
 * controllers keep them: for each available remote APIService, its group-version's v3 document
 * (found through the server's `/openapi/v3` index) and the paths of its group-version with the
 * definitions of its `/openapi/v2`, fetched as the aggregator and again every minute. An
 * APIService that is gone or unavailable takes its documents with it.
 */
import { createHash } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import type { ExtensionOpenAPI, ExtensionV2Part, ExtensionV3Document } from '../openapi/extension-documents';
import { openAPIV3PathKey } from '../openapi/documents';
import { groupVersionOf, isAvailable, serviceOf } from '../../api/apiregistration';
import { connectToExtension, fetchFromExtension, type APIServiceAccess } from './extension-transport';

/** The reference's OpenAPI controllers download the specs again this often. */
export const OPENAPI_REFRESH_MS = 60_000;

interface Downloaded {
  readonly key: string;
  readonly v3?: ExtensionV3Document;
  readonly v2?: ExtensionV2Part;
}

/** The paths of `/apis/<group>/<version>` and below, and every definition and shared parameter, of a v2 document. */
function v2PartOf(
  document: {
    paths?: Record<string, unknown>;
    definitions?: Record<string, unknown>;
    parameters?: Record<string, unknown>;
  },
  prefix: string,
): ExtensionV2Part {
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).filter(([path]) => path === prefix || path.startsWith(`${prefix}/`)),
  );
  return { paths, definitions: document.definitions ?? {}, parameters: document.parameters ?? {} };
}

export class ExtensionOpenAPIDocuments implements ExtensionOpenAPI {
  /** APIService name → what its server gave. */
  private readonly downloaded = new Map<string, Downloaded>();
  private changes = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: APIServiceAccess) {
    this.timer = setInterval(() => {
      for (const name of this.options.current.keys()) void this.refresh(name);
    }, OPENAPI_REFRESH_MS);
    this.timer.unref();
  }

  revision(): number {
    return this.changes;
  }

  v3Documents(): ReadonlyMap<string, ExtensionV3Document> {
    const documents = new Map<string, ExtensionV3Document>();
    for (const { key, v3 } of this.downloaded.values()) if (v3 !== undefined) documents.set(key, v3);
    return documents;
  }

  v2Parts(): readonly ExtensionV2Part[] {
    return [...this.downloaded.values()].flatMap(({ v2 }) => (v2 === undefined ? [] : [v2]));
  }

  /** Downloads the APIService's documents again (or drops them when it is gone or unavailable). */
  async refresh(name: string): Promise<void> {
    const apiService = this.options.current.get(name);
    const service = apiService && serviceOf(apiService);
    if (apiService === undefined || service === undefined || !isAvailable(apiService)) {
      if (this.downloaded.delete(name)) this.changes++;
      return;
    }
    const connection = await connectToExtension(apiService, service, this.options);
    if (!connection.ok) return;
    const { tls } = connection;
    const groupVersion = groupVersionOf(apiService);
    const key = openAPIV3PathKey(groupVersion);
    const [v3, v2] = await Promise.all([this.downloadV3(tls, key), this.downloadV2(tls, `/${key}`)]);
    const previous = this.downloaded.get(name);
    if (previous?.v3?.hash === v3?.hash && JSON.stringify(previous?.v2) === JSON.stringify(v2)) return;
    this.downloaded.set(name, { key, v3, v2 });
    this.changes++;
  }

  private async downloadV3(tls: RequestOptions, key: string): Promise<ExtensionV3Document | undefined> {
    try {
      const index = await fetchFromExtension(tls, '/openapi/v3', 'application/json');
      if (index.status !== 200) return undefined;
      const url = (index.json() as { paths?: Record<string, { serverRelativeURL?: string }> }).paths?.[key]
        ?.serverRelativeURL;
      if (url === undefined) return undefined;
      const document = await fetchFromExtension(tls, url, 'application/json');
      if (document.status !== 200) return undefined;
      // Parsed once to refuse what is not JSON, then served as the server wrote it.
      document.json();
      return { body: document.body, hash: createHash('sha512').update(document.body).digest('hex').toUpperCase() };
    } catch {
      return undefined;
    }
  }

  private async downloadV2(tls: RequestOptions, prefix: string): Promise<ExtensionV2Part | undefined> {
    try {
      const document = await fetchFromExtension(tls, '/openapi/v2', 'application/json');
      if (document.status !== 200) return undefined;
      return v2PartOf(document.json() as Parameters<typeof v2PartOf>[0], prefix);
    } catch {
      return undefined;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
