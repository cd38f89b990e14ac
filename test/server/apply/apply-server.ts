/**
 * The HTTPS server in-process for the apply tests: the real handler chain (client
 * certificates, authorization), the resource routes over a SQLite store in a temp dir, and
 * clients for three identities: the admin (`system:masters`), and `jane` and `bob` of group
 * `dev`. Besides `system:masters`, the only authorization is a grant the test controls: the
 * verbs group `dev` may do (a stand-in for the RBAC a later issue brings), consulted by the
 * chain and by the handlers alike, as one authorizer serves both in the control plane.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { serverAuthorizer } from '../../../server/authz/server-authorizer';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type CapstanServer } from '../../../server/app';
import { ALLOW, NO_OPINION, type Authorizer } from '../../../server/authz/types';
import type { RepresentationSettings } from '../../../server/codec/representation-settings';
import { DEFAULT_OPTIONS } from '../../../server/config/flags';
import { resourceRoutes } from '../../../server/handlers/routes';
import { issueLeaf, type IssuedCertificate } from '../../../server/pki/certificates';
import { generatedPki } from '../../../server/pki/pki';
import type { ResourceType } from '../../../server/registry/types';
import { schemaData } from '../../../server/schema/definitions';
import { ResourceStore } from '../../../storage/objects/resource-store';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import { builtinRegistry } from '../../../server/builtin-types';

export type Json = Record<string, unknown>;
export type Identity = 'admin' | 'jane' | 'bob';

export interface Answer {
  readonly status: number;
  readonly warning: string | undefined;
  readonly body: Json;
}

export interface ApplyServer {
  /** The verbs group `dev` is granted on every resource; empty at first. */
  readonly devVerbs: Set<string>;
  request(
    method: string,
    path: string,
    options?: { as?: Identity; contentType?: string; body?: string | Uint8Array },
  ): Promise<Answer>;
  close(): Promise<void>;
}

function devGrant(verbs: ReadonlySet<string>): Authorizer {
  return {
    authorize: (info) =>
      info.user.groups.includes('dev') && info.isResourceRequest && verbs.has(info.verb) ? ALLOW : NO_OPINION,
  };
}

export async function startApplyServer(
  options: { representations?: RepresentationSettings } = {},
): Promise<ApplyServer> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-apply-server-'));
  let store: RevisionedStore | undefined;
  let server: CapstanServer | undefined;
  try {
    const pki = await generatedPki({ dataDir: dir, bindAddress: '127.0.0.1' });
    const jane = await issueLeaf({ ca: pki.ca, subject: 'CN=jane, O=dev', usage: 'client', validDays: 1 });
    const bob = await issueLeaf({ ca: pki.ca, subject: 'CN=bob, O=dev', usage: 'client', validDays: 1 });
    const identities: Record<Identity, IssuedCertificate> = { admin: pki.admin, jane, bob };
    const devVerbs = new Set<string>();
    const grant = devGrant(devVerbs);
    const authorizer = serverAuthorizer([grant]);
    const opened = await openSqliteStore({ path: join(dir, 'state.db') });
    store = opened;
    const storages = new Map<ResourceType, ResourceStore>();
    const storageFor = (type: ResourceType): ResourceStore => {
      let storage = storages.get(type);
      if (storage === undefined) {
        storage = new ResourceStore({
          store: opened,
          keyPrefix: `/registry/${type.storagePrefix}`,
          qualifiedResource: { group: type.group, resource: type.resource },
          namespaced: type.namespaced,
        });
        storages.set(type, storage);
      }
      return storage;
    };
    const created = createServer({
      options: { ...DEFAULT_OPTIONS, securePort: 0, dataDir: dir, shutdownDelayMs: 0 },
      tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
      authorizer,
      routes: (app) => {
        app.use(
          resourceRoutes({
            registry: builtinRegistry(),
            storageFor,
            definitions: schemaData().definitions,
            representations: options.representations,
            authorizer,
          }),
        );
      },
    });
    server = created;
    const { url } = await created.listen();
    return {
      devVerbs,
      request: (method, path, call = {}) => {
        const identity = identities[call.as ?? 'admin'];
        return new Promise((resolve, reject) => {
          const req = request(
            url + path,
            {
              method,
              ca: pki.ca.certPem,
              cert: identity.certPem,
              key: identity.keyPem,
              agent: false,
              timeout: 10_000,
              headers: {
                accept: 'application/json',
                ...(call.contentType ? { 'content-type': call.contentType } : {}),
              },
            },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () => {
                const warning = res.headers.warning;
                resolve({
                  status: res.statusCode ?? 0,
                  warning: Array.isArray(warning) ? warning.join(', ') : warning,
                  body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json,
                });
              });
              res.on('error', reject);
            },
          );
          req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
          req.on('error', reject);
          req.end(call.body);
        });
      },
      close: async () => {
        await created.shutdown();
        await opened.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server?.shutdown();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
