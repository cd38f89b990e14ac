/**
 * A recorded kubectl session: files and a sequence of kubectl invocations, replayed against a
 * server, each answer (exit code, stdout, stderr) brought to a form that two servers with the
 * same behaviour print alike, whatever their uids, times, resource versions and ports.
 * Fixtures in test/client/fixtures/kubectl-reference/ hold what the reference printed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubectlResult } from './server';

export interface KubectlSession {
  /** What the session shows, for the test's name. */
  readonly title: string;
  /** Files the invocations name as `{dir}/<name>`. */
  readonly files: Record<string, string>;
  readonly steps: readonly KubectlStep[];
}

export interface KubectlStep {
  readonly args: readonly string[];
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const UID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const RESOURCE_VERSION = /((?:"resourceVersion": ?|resourceVersion: |Resource Version: +)"?)\d+/g;
const SERVER = /https:\/\/127\.0\.0\.1:\d+/g;
/**
 * An age as a table prints it (5s, 2m3s, 10h), only as a whole word so names and values stay,
 * with the padding after it, which grows or shrinks with its width.
 */
const AGE = /(?<=\s)\d+[smhd](?:\d+[smh])?(?:( +)|(?=\s|$))/g;

/** One answer with what differs between two equal servers replaced by placeholders. */
export function normaliseKubectlOutput(text: string, dir: string): string {
  return text
    .split(dir)
    .join('{dir}')
    .replace(SERVER, 'https://{server}')
    .replace(UID, '{uid}')
    .replace(TIMESTAMP, '{time}')
    .replace(RESOURCE_VERSION, '$1{rv}')
    .replace(AGE, (_age, padding?: string) => (padding ? '{age} ' : '{age}'));
}

/** Runs the session's invocations in order with `kubectl`, answering what each printed, normalised. */
export async function replayKubectlSession(
  session: Pick<KubectlSession, 'files' | 'steps'>,
  kubectl: (args: readonly string[]) => Promise<KubectlResult>,
): Promise<KubectlStep[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-session-'));
  try {
    for (const [name, content] of Object.entries(session.files)) writeFileSync(join(dir, name), content);
    const answers: KubectlStep[] = [];
    for (const step of session.steps) {
      const args = step.args.map((arg) => arg.split('{dir}').join(dir));
      const { code, stdout, stderr } = await kubectl(args);
      answers.push({
        args: step.args,
        code,
        stdout: normaliseKubectlOutput(stdout, dir),
        stderr: normaliseKubectlOutput(stderr, dir),
      });
    }
    return answers;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
