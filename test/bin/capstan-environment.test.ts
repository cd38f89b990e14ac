/**
 * What bin/capstan sets in glibc's allocator, V8's heap and V8's thread pool before it starts
 * node, read by a module that node requires before the server and that exits at once: the
 * settings that keep the server's memory down and its event loop moving (see the comments in
 * bin/capstan), and an operator's own values left as they are.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from '../helpers/capstan-process';

const ALLOCATOR_SETTINGS = ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'] as const;
const MiB = 1 << 20;

describe('bin/capstan', () => {
  let dir: string;
  let probe: string;
  let youngGenerationProbe: string;
  let workerThreadsProbe: string;

  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'capstan-environment-'));
    probe = join(dir, 'probe.js');
    writeFileSync(
      probe,
      `const names = ${JSON.stringify(ALLOCATOR_SETTINGS)};\n` +
        'process.stdout.write(JSON.stringify(Object.fromEntries(names.map((name) => [name, process.env[name]]))));\n' +
        'process.exit(0);\n',
    );
    // Allocates 3,000,000 objects while keeping the last 300,000 alive, so that scavenges find
    // survivors and V8 grows the young generation as far as it may, then reports its size. A
    // count, not a time: 400 ms of a loaded CI machine allocated only 230,000-380,000 and left
    // the young generation at 32 MiB even with 64 MiB semi-spaces (1,000,000 grow it to 64 MiB).
    youngGenerationProbe = join(dir, 'young-generation.js');
    writeFileSync(
      youngGenerationProbe,
      "const { getHeapSpaceStatistics } = require('node:v8');\n" +
        'const recent = new Array(300000);\n' +
        'for (let i = 0; i < 3000000; i++) recent[i % recent.length] = { i, text: `x${i}` };\n' +
        "const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');\n" +
        'process.stdout.write(String(young.space_size));\n' +
        'process.exit(0);\n',
    );
    // V8's platform starts its worker threads before node runs any JavaScript; each is named.
    workerThreadsProbe = join(dir, 'worker-threads.js');
    writeFileSync(
      workerThreadsProbe,
      "const { readdirSync, readFileSync } = require('node:fs');\n" +
        "const names = readdirSync('/proc/self/task').map((id) => readFileSync(`/proc/self/task/${id}/comm`, 'utf8').trim());\n" +
        "process.stdout.write(String(names.filter((name) => name === 'V8Worker').length));\n" +
        'process.exit(0);\n',
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * What `probePath` writes in the node that bin/capstan starts, with the operator's own
   * `nodeOptions`, on the CPUs `cpus` names (taskset's list) and in `environment`.
   */
  function probed(
    probePath: string,
    options: { nodeOptions?: string; cpus?: string; environment?: NodeJS.ProcessEnv },
  ) {
    const env = {
      ...(options.environment ?? process.env),
      NODE_OPTIONS: `${options.nodeOptions ?? ''} --require ${probePath}`,
    };
    const capstan = join(ROOT, 'bin', 'capstan');
    const output =
      options.cpus === undefined
        ? execFileSync(capstan, [], { env })
        : execFileSync('taskset', ['-c', options.cpus, capstan], { env });
    return output.toString('utf8');
  }

  /** The allocator settings the node that bin/capstan starts sees, given `settings` in its environment. */
  function allocatorSettingsSeen(settings: Partial<Record<(typeof ALLOCATOR_SETTINGS)[number], string>>) {
    const environment: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ALLOCATOR_SETTINGS) {
      delete environment[name];
    }
    return JSON.parse(probed(probe, { environment: { ...environment, ...settings } })) as Record<
      string,
      string | undefined
    >;
  }

  /** The young generation's size, in bytes, after a burst of allocation in the node that bin/capstan starts. */
  function youngGenerationAfterBurst(nodeOptions = '') {
    return Number(probed(youngGenerationProbe, { nodeOptions }));
  }

  /** How many worker threads V8 has in the node that bin/capstan starts, on the CPUs `cpus` names. */
  function v8WorkerThreads(options: { cpus?: string; nodeOptions?: string } = {}) {
    return Number(probed(workerThreadsProbe, options));
  }

  it("gives V8 one worker thread for each CPU it may use but the main thread's, one at least", () => {
    expect(v8WorkerThreads()).toBe(Math.max(1, availableParallelism() - 1));
    expect(v8WorkerThreads({ cpus: '0' })).toBe(1);
  });

  it("keeps an operator's own number of V8 worker threads", () => {
    expect(v8WorkerThreads({ cpus: '0', nodeOptions: '--v8-pool-size=3' })).toBe(3);
  });

  it('keeps the young generation to 16 MiB a semi-space', () => {
    expect(youngGenerationAfterBurst()).toBeLessThanOrEqual(2 * 16 * MiB);
  });

  it("keeps an operator's own young generation size", () => {
    expect(youngGenerationAfterBurst('--max-semi-space-size=64')).toBeGreaterThan(2 * 16 * MiB);
  });

  it('starts node with two glibc arenas and a fixed mmap threshold', () => {
    expect(allocatorSettingsSeen({})).toEqual({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' });
  });

  it("keeps an operator's own settings", () => {
    expect(allocatorSettingsSeen({ MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '65536' })).toEqual({
      MALLOC_ARENA_MAX: '8',
      MALLOC_MMAP_THRESHOLD_: '65536',
    });
  });
});
