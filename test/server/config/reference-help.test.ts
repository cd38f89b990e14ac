/**
 * capstan knows every flag of kube-apiserver 1.34 with the reference's defaults: the generated
 * list (server/config/reference-flags.ts) is checked against the `--help` of the reference
 * binary itself (built from its Go module by tools/reference/build-kube-apiserver.sh, cached),
 * and `bin/kube-apiserver --help` must list the same flags with the same defaults.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REFERENCE_FLAGS } from '../../../server/config/reference-flags';
import { ensureBuilt } from '../../helpers/capstan-process';
import { buildReferenceApiserver, REFERENCE_APISERVER } from '../../helpers/reference-apiserver';

const ROOT = join(__dirname, '..', '..', '..');
const BUILD_TIMEOUT_MS = 40 * 60_000;

interface HelpFlag {
  readonly type: string;
  /** As printed in `(default ...)`; empty when none is printed. */
  readonly printedDefault: string;
}

/** The flags of a pflag `--help` text: `  -x, --name type   usage (default ...)`, usage possibly over several lines. */
function parseHelp(text: string): Map<string, HelpFlag> {
  const flags = new Map<string, { type: string; usage: string }>();
  let current: { type: string; usage: string } | undefined;
  for (const line of text.split('\n')) {
    const match = /^\s+(?:-\S, )?--([a-z0-9-]+)(?: (\S+))?(?:\s{2,}(.*))?$/.exec(line);
    if (match) {
      current = { type: match[2] ?? 'bool', usage: match[3] ?? '' };
      flags.set(match[1], current);
    } else if (/^\S/.test(line) || line.trim() === '') {
      current = undefined;
    } else if (current) {
      current.usage += `\n${line.trim()}`;
    }
  }
  return new Map(
    [...flags].map(([name, flag]) => {
      const printed = /\(default (.*)\)$/s.exec(flag.usage);
      return [name, { type: flag.type, printedDefault: printed ? printed[1] : '' }];
    }),
  );
}

let referenceHelp: Map<string, HelpFlag>;
let capstanHelp: Map<string, HelpFlag>;

beforeAll(() => {
  buildReferenceApiserver(BUILD_TIMEOUT_MS);
  referenceHelp = parseHelp(execFileSync(REFERENCE_APISERVER, ['--help'], { encoding: 'utf8' }));
  ensureBuilt();
  capstanHelp = parseHelp(
    execFileSync(join(ROOT, 'bin', 'kube-apiserver'), ['--help'], { encoding: 'utf8', cwd: '/' }),
  );
}, BUILD_TIMEOUT_MS);

it('the generated list holds every flag the reference lists, and no other listed one', () => {
  const listed = Object.keys(REFERENCE_FLAGS).filter((name) => !REFERENCE_FLAGS[name].hidden);
  expect(listed.sort()).toEqual([...referenceHelp.keys()].filter((name) => name !== 'help').sort());
  expect(referenceHelp.has('insecure-port')).toBe(false);
});

it("bin/kube-apiserver --help lists the reference's flags with the reference's defaults", () => {
  for (const [name, flag] of referenceHelp) {
    if (name === 'help') continue;
    expect({ name, printedDefault: capstanHelp.get(name)?.printedDefault }).toEqual({
      name,
      printedDefault: flag.printedDefault,
    });
  }
  const ownFlags = [...capstanHelp.keys()].filter((name) => !referenceHelp.has(name));
  expect(ownFlags.sort()).toEqual(['controllers', 'data-dir']);
  expect(capstanHelp.has('insecure-port')).toBe(false);
});

it('bin/kube-apiserver accepts each listed flag at its default and exits 0 on --help', () => {
  // --help ends the parse, so every flag before it must be known and its default accepted.
  const atDefault = [...referenceHelp]
    .filter(([name, flag]) => name !== 'help' && name !== 'version' && flag.type === 'bool')
    .map(([name, flag]) => `--${name}=${flag.printedDefault === 'true' ? 'true' : 'false'}`);
  expect(() =>
    execFileSync(join(ROOT, 'bin', 'kube-apiserver'), [...atDefault, '--help'], { encoding: 'utf8', cwd: '/' }),
  ).not.toThrow();
});
