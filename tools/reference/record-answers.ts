/**
 * `node dist/tools/reference/record-answers.js <steps.json> [--write]`: sends a fixture's steps
 * (test/helpers/recorded-answers.ts) to kube-apiserver and to capstan side by side and prints each
 * step they answer differently, as code and answer reduced to what the fixture's tests compare.
 * With `--write`, the reference's codes and answers are written into the file: how the fixtures
 * of the reference's answers are recorded and re-recorded (steps may be written without them).
 *
 * Each runs on an etcd of its own started here, from an empty store; the reference
 * built by build-kube-apiserver.sh, capstan from dist/, both with RECORDING_FLAGS and the
 * fixture's own flags.
 */
import { writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { startAnsweringWebhook, webhookSubstitutions } from '../../test/helpers/answering-webhook';
import { startEtcd } from '../../test/helpers/etcd';
import { startReferenceApiserver } from '../../test/helpers/reference-apiserver';
import { startServer } from '../../test/helpers/server';
import {
  comparable,
  fixtureFlags,
  fixtureText,
  readFixture,
  sendSteps,
  withoutVolatile,
} from '../../test/helpers/recorded-answers';

async function main(file: string, write: boolean): Promise<number> {
  const fixture = readFixture(file);
  const { steps } = fixture;
  const flags = fixtureFlags(fixture);
  // An etcd each, both under the default prefix: storage keys in messages are then the same.
  const etcds = [await startEtcd(), await startEtcd()];
  const webhook = fixture.webhook ? await startAnsweringWebhook() : undefined;
  const substitutions = webhook === undefined ? {} : webhookSubstitutions(webhook);
  try {
    const reference = await startReferenceApiserver({ etcdServers: etcds[0].endpoints, flags });
    const capstan = await startServer({ etcdServers: etcds[1].endpoints, flags });
    try {
      const theirs = await sendSteps(reference.request, steps, substitutions);
      const ours = await sendSteps(capstan.request, steps, substitutions);
      let differences = 0;
      for (const step of steps) {
        const expected = theirs.get(step.name);
        const actual = ours.get(step.name);
        const shown = (answer: typeof actual) =>
          step.setup
            ? { code: answer?.code }
            : { code: answer?.code, answer: withoutVolatile(comparable(answer?.answer)) };
        if (isDeepStrictEqual(shown(expected), shown(actual))) continue;
        differences++;
        console.log(`differs: ${step.name} (${step.method} ${step.path})`);
        console.log(`  reference: ${JSON.stringify(shown(expected))}`);
        console.log(`  capstan:   ${JSON.stringify(shown(actual))}`);
      }
      console.log(`${steps.length} steps, ${differences} answered differently`);
      if (write) {
        const recorded = steps.map((step) => {
          const { code: _code, answer: _answer, ...request } = step;
          const reply = theirs.get(step.name);
          return step.setup
            ? { ...request, code: reply?.code }
            : { ...request, code: reply?.code, answer: reply?.answer };
        });
        writeFileSync(file, fixtureText(fixture, recorded));
      }
      return differences === 0 ? 0 : 1;
    } finally {
      await capstan.stop();
      await reference.stop();
    }
  } finally {
    await webhook?.close();
    await Promise.all(etcds.map((etcd) => etcd.stop()));
  }
}

const [file, ...options] = process.argv.slice(2);
if (file === undefined || options.some((option) => option !== '--write')) {
  console.error('usage: record-answers.js <steps.json> [--write]');
  process.exit(2);
}
main(file, options.includes('--write')).then(
  (status) => process.exit(status),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
