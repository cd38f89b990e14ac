/**
 * A measurement run in a child process of its own (a fresh heap, `--expose-gc`), so that what
 * one benchmark leaves in memory does not count in the next. The parent forks the probe's own
 * module and sends it the request; the module, run as the child, answers once and exits.
 *
 *   // parent side
 *   const result = await runProbe<Request, Result>(__filename, request, { name: 'the cache memory probe', timeoutMs });
 *   // child side, at the module's end
 *   if (require.main === module) answerProbe(probe);
 */
import { fork } from 'node:child_process';
import { killOnExit } from './scratch';

type ProbeAnswer<Result> = { readonly result: Result } | { readonly error: string };

export function runProbe<Request, Result>(
  moduleFile: string,
  request: Request,
  options: { readonly name: string; readonly timeoutMs: number },
): Promise<Result> {
  const child = fork(moduleFile, [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  killOnExit(child);
  return new Promise((resolve, reject) => {
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not answer in ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    child.once('message', (answer: ProbeAnswer<Result>) => {
      answered = true;
      clearTimeout(timer);
      if ('result' in answer) resolve(answer.result);
      else reject(new Error(`${options.name}: ${answer.error}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!answered) reject(new Error(`${options.name} exited with ${code} before answering`));
    });
    child.send(request as object);
  });
}

/** The child's side: takes the one request, answers with the probe's result or its error, and exits. */
export function answerProbe<Request, Result>(probe: (request: Request) => Promise<Result>): void {
  process.once('message', (request: Request) => {
    const answer = (message: ProbeAnswer<Result>) => process.send?.(message, () => process.exit(0));
    probe(request).then(
      (result) => answer({ result }),
      (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
