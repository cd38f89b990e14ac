/**
 * Writes recorded from kube-apiserver 1.34.4 and replayed against capstan, for any kind: a
 * create is a dry-run POST of the object; an update or a status write first creates the object
 * for real, then sends the merge patch to the object or its status as a dry run. The answer
 * kept is the code and, of a refusal, the Status's causes as `<field>: <message>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import type { HttpResult } from '../../helpers/server';

export interface RecordedWrite {
  readonly name: string;
  /** The collection the object is posted to. */
  readonly collection: string;
  readonly object: { metadata: { name: string } } & Record<string, unknown>;
  readonly write: 'create' | 'update' | 'status';
  /** The merge patch of an update or status write. */
  readonly patch?: unknown;
  readonly code: number;
  readonly causes: readonly string[];
}

export type WriteAnswer = Pick<RecordedWrite, 'code' | 'causes'>;

interface Requester {
  request(
    method: string,
    path: string,
    options: { body: string; headers: Record<string, string> },
  ): Promise<Pick<HttpResult, 'status' | 'body' | 'json'>>;
}

function answerOf(result: Pick<HttpResult, 'status' | 'json'>): WriteAnswer {
  const body = result.json<{ details?: { causes?: { field?: string; message: string }[] } }>();
  return {
    code: result.status,
    causes: result.status >= 400 ? (body.details?.causes ?? []).map((x) => `${x.field}: ${x.message}`) : [],
  };
}

/** Sends one write as the fixtures describe it, to either server. */
export async function sendWrite(
  server: Requester,
  write: Omit<RecordedWrite, 'code' | 'causes'>,
): Promise<WriteAnswer> {
  const post = (dryRun: boolean) =>
    server.request('POST', `${write.collection}${dryRun ? '?dryRun=All' : ''}`, {
      body: JSON.stringify(write.object),
      headers: { 'Content-Type': 'application/json' },
    });
  if (write.write === 'create') return answerOf(await post(true));
  const made = await post(false);
  if (made.status !== 201) throw new Error(`${write.name}: the object was not created: ${made.body}`);
  const path = `${write.collection}/${write.object.metadata.name}${write.write === 'status' ? '/status' : ''}`;
  return answerOf(
    await server.request('PATCH', `${path}?dryRun=All`, {
      body: JSON.stringify(write.patch),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    }),
  );
}

/**
 * One test per recorded write of `fixtures/<fixture>`, against one in-process replica started
 * with `flags` (those the reference was started with).
 */
export function replayRecordedWrites(fixture: string, flags: readonly string[] = []): void {
  const writes = JSON.parse(readFileSync(join(__dirname, 'fixtures', fixture), 'utf8')) as readonly RecordedWrite[];
  let server: InProcessServer;

  beforeAll(async () => {
    server = await startInProcessServer(flags);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  test.each(writes.map((write) => [write.name, write] as const))('%s', async (_name, write) => {
    expect(await sendWrite(server, write)).toEqual({ code: write.code, causes: write.causes });
  });
}
