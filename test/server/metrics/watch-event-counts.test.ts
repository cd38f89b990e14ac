/**
 * `apiserver_watch_events_total` on the whole server: the watch handler counts each event it
 * sends into a tally that is added to the counter before each scrape (not through prom-client
 * per event), so the counts must still add up across scrapes, and a DELETE of /metrics must
 * reset what was counted and not yet scraped too.
 */
import { createConfigMaps, inProcessServerForSuite } from '../../helpers/in-process-server';

const CM = '/api/v1/namespaces/default/configmaps';
const SAMPLE = 'apiserver_watch_events_total{group="",version="v1",resource="configmaps"}';

let fromRevision: string;

const server = inProcessServerForSuite();

beforeAll(async () => {
  const list = await server.request('GET', CM);
  fromRevision = (JSON.parse(list.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  await createConfigMaps(server, ['one', 'two']);
});

/** A watch from before the two creates, ended by its timeout: two events sent. */
async function watchBoth(): Promise<void> {
  const watch = await server.request('GET', `${CM}?watch=1&resourceVersion=${fromRevision}&timeoutSeconds=1`);
  expect(watch.status).toBe(200);
  expect(watch.body.trim().split('\n')).toHaveLength(2);
}

/** The counter's sample for ConfigMaps, or undefined when it has none. */
async function countedEvents(): Promise<number | undefined> {
  const metrics = await server.request('GET', '/metrics');
  expect(metrics.status).toBe(200);
  const line = metrics.body.split('\n').find((text) => text.startsWith(`${SAMPLE} `));
  return line === undefined ? undefined : Number(line.slice(SAMPLE.length + 1));
}

describe('apiserver_watch_events_total', () => {
  it('adds up the events sent across scrapes, and a reset zeroes those not yet scraped', async () => {
    await watchBoth();
    expect(await countedEvents()).toBe(2);
    await watchBoth();
    await watchBoth();
    expect(await countedEvents()).toBe(6);

    await watchBoth();
    const reset = await server.request('DELETE', '/metrics');
    expect(reset.status).toBe(200);
    expect(await countedEvents()).toBeUndefined();
    await watchBoth();
    expect(await countedEvents()).toBe(2);
  });
});
