/**
 * `/debug/pprof/` answered with Go's net/http/pprof index page, as kube-apiserver 1.34.4 served
 * it (fixtures/pprof-index.reference.json), restricted to what capstan serves: the reference's
 * page with the rows and descriptions of Go's runtime profiles capstan has no counterpart for
 * taken out, with the goroutine dump link under the table, and with the counts capstan can
 * report (it holds no samples between requests). The `profile` row and every line of the frame
 * are the reference's bytes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const REFERENCE = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'pprof-index.reference.json'), 'utf8')) as {
  contentType: string;
  page: string;
};
const SERVED = ['heap', 'profile'];
/** capstan's heap samples a window of the request's, not the live heap Go's describes. */
const HEAP_DESCRIPTION =
  '<li><div class=profile-name>heap: </div> Sampled allocations still held at the end of the seconds GET parameter&#39;s window (V8&#39;s sampling heap profiler).</li>';

/** The reference's page as it reads with only capstan's profiles. */
function expectedPage(): string {
  const lines = REFERENCE.page.split('\n').flatMap((line) => {
    const row = /^<tr><td>\d+<\/td><td><a href='(\w+)\?debug=1'>/.exec(line);
    if (row !== null) return SERVED.includes(row[1]) ? [line.replace(/^<tr><td>\d+/, '<tr><td>0')] : [];
    const description = /^<li><div class=profile-name>(\w+): /.exec(line);
    if (description !== null) {
      if (!SERVED.includes(description[1])) return [];
      return [description[1] === 'heap' ? HEAP_DESCRIPTION : line];
    }
    return line.startsWith('<a href="goroutine?debug=2">') ? [] : [line];
  });
  return lines.join('\n');
}

const server = inProcessServerForSuite([], 30_000);

test("the index is Go's page listing the profiles capstan serves", async () => {
  const index = await server.request('GET', '/debug/pprof/');
  expect(index.status).toBe(200);
  expect(index.headers['content-type']).toBe(REFERENCE.contentType);
  expect(index.headers['x-content-type-options']).toBe('nosniff');
  expect(index.body).toBe(expectedPage());
});

test('every profile the index links to is served', async () => {
  const index = await server.request('GET', '/debug/pprof/');
  const links = [...index.body.matchAll(/href='(\w+)\?debug=1'/g)].map((match) => match[1]);
  expect(links).toEqual(SERVED);
  for (const name of links) {
    const answer = await server.request('GET', `/debug/pprof/${name}?seconds=1`);
    expect({ name, status: answer.status }).toEqual({ name, status: 200 });
  }
}, 20_000);
