/**
 * capstan's etcd client on its own, against real etcd processes: its codecs, failover to
 * another member, a watch resumed across an etcd restart, deadlines, TLS with a client
 * certificate, and leases.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EtcdCallError, GrpcStatus } from '../../../storage/etcd/client/call-error';
import { EtcdClient } from '../../../storage/etcd/client/client';
import { MessageDecoder, frameMessage } from '../../../storage/etcd/client/framing';
import {
  decodeLeaseGrantResponse,
  decodeTxnResponse,
  encodeLeaseIdRequest,
  encodeTxnRequest,
} from '../../../storage/etcd/client/messages';
import { ProtoReader, ProtoWriter } from '../../../storage/etcd/client/protobuf';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import type { RevisionedStore, StoreEvent } from '../../../storage/store';
import { startEtcd, startEtcdCluster } from '../../helpers/etcd';
import { freePort } from '../../helpers/ports';
import { waitFor } from '../../helpers/wait-for';

const run = promisify(execFile);
const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('codecs', () => {
  test('int64 varints round-trip, negative ones and lease IDs past 2^53 included', () => {
    const id = 0x694d7a3c1b2e4f50n;
    const written = new ProtoWriter().varint(1, 300).varint(2, -1).bigVarint(3, id).bigVarint(4, -5n).finish();
    const reader = new ProtoReader(written);
    const read: unknown[] = [];
    for (let field = reader.next(); field !== 0; field = reader.next())
      read.push(field === 3 || field === 4 ? reader.bigVarint() : reader.varint());
    expect(read).toEqual([300, -1, id, -5n]);
    expect(decodeLeaseGrantResponse(new ProtoWriter().bigVarint(2, id).varint(3, 60).finish())).toMatchObject({
      id,
      ttl: 60,
    });
    expect(encodeLeaseIdRequest({ id })).toEqual(new ProtoWriter().bigVarint(1, id).finish());
  });

  test('a compare on mod revision 0 still names its target (an absent key compares as 0)', () => {
    const request = encodeTxnRequest({
      compare: [{ key: bytes('/k'), target: 'mod', result: 'equal', value: 0 }],
      success: [],
      failure: [],
    });
    // compare { result: 0 (omitted), target: 2, key: "/k", mod_revision: 0 (field 6, present) }
    expect([...request]).toEqual([0x0a, 8, 0x10, 2, 0x1a, 2, 0x2f, 0x6b, 0x30, 0]);
    expect(decodeTxnResponse(Buffer.from([0x10, 1]))).toEqual({
      header: { revision: 0 },
      succeeded: true,
      responses: [],
    });
  });

  test('gRPC messages split across chunks and packed into one are both reassembled', () => {
    const one = frameMessage(bytes('first'));
    const two = frameMessage(bytes('second'));
    const decoder = new MessageDecoder();
    const joined = Buffer.concat([one, two]);
    expect(decoder.push(joined.subarray(0, 3))).toEqual([]);
    expect(decoder.push(joined.subarray(3, 12)).map(String)).toEqual(['first']);
    expect(decoder.partial).toBe(true);
    expect(decoder.push(joined.subarray(12)).map(String)).toEqual(['second']);
    expect(decoder.partial).toBe(false);
  });

  test('a large message in many chunks, its prefix split byte by byte, comes out whole, and the next with it', () => {
    const large = Buffer.alloc(1_000_000, 'a');
    const joined = Buffer.concat([frameMessage(large), frameMessage(bytes('next'))]);
    const decoder = new MessageDecoder();
    const out: Buffer[] = [];
    for (let at = 0; at < 5; at++) out.push(...decoder.push(joined.subarray(at, at + 1)));
    for (let at = 5; at < joined.length; at += 16_384) out.push(...decoder.push(joined.subarray(at, at + 16_384)));
    expect(out.map((message) => message.length)).toEqual([large.length, 4]);
    expect(out[0].equals(large)).toBe(true);
    expect(String(out[1])).toBe('next');
    expect(decoder.partial).toBe(false);
  });
});

describe('failover among members', () => {
  test('calls move to another member when the one in use is killed', async () => {
    const cluster = await startEtcdCluster(3);
    const client = new EtcdClient({ endpoints: cluster.endpoints, requestTimeoutMs: 2_000 });
    const store = await openEtcdStore({ endpoints: cluster.endpoints, requestTimeoutMs: 2_000 });
    try {
      await client.put({ key: bytes('/failover/a'), value: bytes('1') });
      const used = client.endpoint;
      const member = cluster.members.find((m) => m.endpoint === used)!;
      await member.kill();
      // The dead member costs at most one failed call: the one that may be sent on its
      // connection before its close is seen (UNAVAILABLE, which the store retries on another
      // member); every later call goes to a live member. An election, when the killed member
      // led, may fail calls for a moment too (the store retries those as well).
      const failures: string[] = [];
      const { kvs } = await waitFor(
        'a read after the kill',
        () => client.range({ key: bytes('/failover/a') }).catch((error: Error) => void failures.push(error.message)),
        10_000,
        100,
      );
      expect(kvs.map((kv) => String(kv.value))).toEqual(['1']);
      const onDeadConnection = (message: string) => message.includes(` on ${used}: UNAVAILABLE)`);
      const others = failures.filter((message) => !/etcdserver: (leader changed|no leader)/.test(message));
      expect(others.filter((message) => !onDeadConnection(message))).toEqual([]);
      expect(others.length).toBeLessThanOrEqual(1);
      expect(client.endpoint).not.toBe(used);
      const status = await client.status();
      expect(status.version).toMatch(/^3\.\d+\.\d+/);
      await expect(store.currentRevision()).resolves.toBeGreaterThan(0);
    } finally {
      client.close();
      await store.close();
      await cluster.stop();
    }
  }, 60_000);
});

describe('a member that goes silent', () => {
  /** Watch streams open on a member, from its own metrics. */
  async function watchStreamsOn(endpoint: string): Promise<number> {
    const text = await (await fetch(`${endpoint}/metrics`)).text();
    const line = text.split('\n').find((each) => each.startsWith('etcd_debugging_mvcc_watch_stream_total '));
    return Number(line?.split(' ')[1] ?? 0);
  }

  test('a store watch moves to another member once pings go unanswered, and misses nothing', async () => {
    const cluster = await startEtcdCluster(3);
    const keepAlive = { timeMs: 500, timeoutMs: 1_000 };
    const store = await openEtcdStore({ endpoints: cluster.endpoints, requestTimeoutMs: 2_000, keepAlive });
    const events: StoreEvent[] = [];
    const errors: Error[] = [];
    try {
      const first = await store.create('/silent/0', bytes('x'));
      const watch = store.watch({
        prefix: '/silent/',
        fromRevision: first.revision,
        onEvents: (batch) => events.push(...batch),
        onError: (error) => errors.push(error),
      });
      await waitFor('the first write watched', async () => (events.length >= 1 ? true : undefined), 10_000, 50);
      const counts = await Promise.all(cluster.members.map((member) => watchStreamsOn(member.endpoint)));
      const watched = cluster.members[counts.findIndex((count) => count > 0)];
      // Frozen, it keeps its sockets open: only a ping can tell the watch it is gone.
      watched.pause();
      const writer = new EtcdClient({
        endpoints: cluster.members.filter((member) => member !== watched).map((member) => member.endpoint),
        requestTimeoutMs: 2_000,
      });
      const written = [first.revision];
      try {
        for (let i = 1; i <= 3; i++) {
          const put = await waitFor(
            `write ${i} while a member is frozen`,
            () => writer.put({ key: bytes(`/silent/${i}`), value: bytes('x') }).catch(() => undefined),
            10_000,
            100,
          );
          written.push(Number(put.header.revision));
        }
      } finally {
        writer.close();
      }
      await waitFor(
        'the writes made while the member was frozen',
        async () => (events.length >= written.length || errors.length > 0 ? true : undefined),
        15_000,
        50,
      );
      watch.close();
      expect(errors).toEqual([]);
      expect(events.map((event) => event.kv.modRevision)).toEqual(written);
      watched.resume();
    } finally {
      for (const member of cluster.members) member.resume();
      await store.close();
      await cluster.stop();
    }
  }, 90_000);
});

describe('a store watch across an etcd restart', () => {
  test('sees every write once, in order: none lost, none doubled', async () => {
    const etcd = await startEtcd();
    const store: RevisionedStore = await openEtcdStore({ endpoints: etcd.endpoints, requestTimeoutMs: 2_000 });
    const events: StoreEvent[] = [];
    const errors: Error[] = [];
    try {
      const first = await store.create('/resume/0', bytes('x'));
      const watch = store.watch({
        prefix: '/resume/',
        fromRevision: first.revision,
        onEvents: (batch) => events.push(...batch),
        onError: (error) => errors.push(error),
      });
      const written = [first.revision];
      for (let i = 1; i <= 5; i++) written.push((await store.create(`/resume/${i}`, bytes('x'))).revision);
      await waitFor(
        'the first writes watched',
        async () => (events.length >= written.length ? true : undefined),
        10_000,
        50,
      );
      await etcd.kill();
      await etcd.restart();
      for (let i = 6; i <= 10; i++) written.push((await store.create(`/resume/${i}`, bytes('x'))).revision);
      const update = await store.update('/resume/1', bytes('y'), written[1]);
      written.push(update.revision);
      await waitFor(
        'the writes after the restart watched',
        async () => (events.length >= written.length || errors.length > 0 ? true : undefined),
        20_000,
        50,
      );
      watch.close();
      expect(errors).toEqual([]);
      expect(events.map((event) => event.kv.modRevision)).toEqual(written);
      expect(events.at(-1)).toMatchObject({ type: 'put', prevKv: { value: bytes('x') } });
    } finally {
      await store.close();
      await etcd.stop();
    }
  }, 60_000);
});

describe('deadlines', () => {
  test('a call etcd does not answer in time fails with DEADLINE_EXCEEDED, and etcd is told the deadline', async () => {
    // An HTTP/2 server that takes calls and never answers: a member stuck mid-request.
    const timeouts: string[] = [];
    const server = http2.createServer();
    server.on('stream', (_stream, headers) => timeouts.push(String(headers['grpc-timeout'])));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = new EtcdClient({ endpoints: [endpoint], requestTimeoutMs: 5_000 });
    try {
      const started = Date.now();
      const failure = await client.range({ key: bytes('/slow') }, { timeoutMs: 300 }).catch((error: unknown) => error);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(failure).toBeInstanceOf(EtcdCallError);
      expect(failure).toMatchObject({ code: GrpcStatus.DEADLINE_EXCEEDED, endpoint });
      expect((failure as Error).message).toBe(
        `no answer within the deadline of 300 ms (Range on ${endpoint}: DEADLINE_EXCEEDED)`,
      );
      expect(timeouts).toHaveLength(1);
      expect(Number(timeouts[0].replace(/m$/, ''))).toBeGreaterThan(200);
    } finally {
      client.close();
      server.close();
    }
  });

  test('no member reachable: the call fails at once as never sent', async () => {
    const client = new EtcdClient({
      endpoints: [`http://127.0.0.1:${await freePort()}`, `http://127.0.0.1:${await freePort()}`],
    });
    try {
      const failure = await client.put({ key: bytes('/k'), value: bytes('v') }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: GrpcStatus.UNAVAILABLE, neverSent: true });
      expect((failure as Error).message).toMatch(
        /^no etcd member could be reached \(http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED.*; http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
      );
    } finally {
      client.close();
    }
  });
});

describe('TLS with a client certificate', () => {
  let dir: string;
  let endpoint: string;
  let etcd: ReturnType<typeof spawn> | undefined;
  const file = (name: string) => join(dir, name);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-etcd-tls-'));
    const key = (name: string) =>
      run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', file(`${name}.key`)]);
    await key('ca');
    await run('openssl', [
      'req',
      '-x509',
      '-new',
      '-key',
      file('ca.key'),
      '-sha256',
      '-days',
      '1',
      '-subj',
      '/CN=test-etcd-ca',
      '-out',
      file('ca.crt'),
    ]);
    const leaf = async (name: string, ext: string) => {
      await key(name);
      await run('openssl', [
        'req',
        '-new',
        '-key',
        file(`${name}.key`),
        '-subj',
        `/CN=${name}`,
        '-out',
        file(`${name}.csr`),
      ]);
      await writeFile(file(`${name}.ext`), ext);
      await run('openssl', [
        'x509',
        '-req',
        '-in',
        file(`${name}.csr`),
        '-CA',
        file('ca.crt'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-days',
        '1',
        '-sha256',
        '-extfile',
        file(`${name}.ext`),
        '-out',
        file(`${name}.crt`),
      ]);
    };
    await leaf('server', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    await leaf('client', 'extendedKeyUsage=clientAuth\n');
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    endpoint = `https://127.0.0.1:${clientPort}`;
    etcd = spawn(
      'etcd',
      [
        `--data-dir=${file('data')}`,
        `--listen-client-urls=${endpoint}`,
        `--advertise-client-urls=${endpoint}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
        `--cert-file=${file('server.crt')}`,
        `--key-file=${file('server.key')}`,
        '--client-cert-auth=true',
        `--trusted-ca-file=${file('ca.crt')}`,
        '--log-level=warn',
      ],
      { stdio: 'ignore' },
    );
  }, 30_000);

  afterAll(async () => {
    etcd?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  test('with the CA and the client certificate, calls work', async () => {
    const [ca, cert, key] = await Promise.all(
      ['ca.crt', 'client.crt', 'client.key'].map((name) => readFile(file(name))),
    );
    const client = new EtcdClient({ endpoints: [endpoint], tls: { ca, cert, key }, requestTimeoutMs: 1_000 });
    try {
      await waitFor(
        'the TLS etcd to answer',
        () =>
          client.status().then(
            () => true,
            () => undefined,
          ),
        15_000,
        100,
      );
      const put = await client.put({ key: bytes('/tls/k'), value: bytes('secret') });
      const { kvs } = await client.range({ key: bytes('/tls/k') });
      expect(kvs).toEqual([expect.objectContaining({ value: bytes('secret'), modRevision: put.header.revision })]);
    } finally {
      client.close();
    }
  });

  test('without the client certificate, etcd refuses the handshake and the error says so', async () => {
    const ca = await readFile(file('ca.crt'));
    const client = new EtcdClient({ endpoints: [endpoint], tls: { ca }, requestTimeoutMs: 1_000 });
    try {
      const failure = await client.range({ key: bytes('/tls/k') }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: GrpcStatus.UNAVAILABLE });
      expect((failure as Error).message).toMatch(/alert (bad certificate|certificate required)/);
    } finally {
      client.close();
    }
  });
});

describe('leases', () => {
  test('a key on a lease is deleted when the lease expires; renewing and revoking work', async () => {
    const etcd = await startEtcd();
    const client = new EtcdClient({ endpoints: etcd.endpoints });
    try {
      const lease = await client.leaseGrant(1);
      // etcd raises a TTL below its minimum (1.5 election timeouts) to that minimum.
      expect(lease.ttl).toBeGreaterThanOrEqual(1);
      expect(await client.leaseKeepAliveOnce(lease.id)).toBeGreaterThanOrEqual(1);
      await client.put({ key: bytes('/lease/expiring'), value: bytes('v'), lease: lease.id });
      const stored = await client.range({ key: bytes('/lease/expiring') });
      expect(stored.kvs[0].lease).toBe(lease.id);
      await waitFor(
        'the key to expire with its lease',
        async () => ((await client.range({ key: bytes('/lease/expiring') })).kvs.length === 0 ? true : undefined),
        15_000,
        100,
      );
      expect(await client.leaseKeepAliveOnce(lease.id)).toBeLessThanOrEqual(0);

      const revoked = await client.leaseGrant(600);
      await client.put({ key: bytes('/lease/revoked'), value: bytes('v'), lease: revoked.id });
      await client.leaseRevoke(revoked.id);
      expect((await client.range({ key: bytes('/lease/revoked') })).kvs).toEqual([]);
    } finally {
      client.close();
      await etcd.stop();
    }
  }, 30_000);
});
