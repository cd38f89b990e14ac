/**
 * The watch writer's turn: what its watchers get in one turn of the event loop goes out in one
 * write when the turn ends, or earlier, before a write's answer, when few connections wait.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { flushGatheredEventsIfFew, WatchWriter } from '../../../server/handlers/watch-writer';

/** A response whose writes are recorded: a WebSocket-less, socket-less stream as `res.write` sees it. */
function recordingResponse(): { res: ServerResponse; writes: string[] } {
  const writes: string[] = [];
  const res = Object.assign(new EventEmitter(), {
    headersSent: false,
    chunkedEncoding: false,
    destroyed: false,
    writableLength: 0,
    write: (bytes: Buffer) => writes.push(bytes.toString()) > 0,
  });
  return { res: res as unknown as ServerResponse, writes };
}

function writers(count: number): { writer: WatchWriter; writes: string[] }[] {
  return Array.from({ length: count }, () => {
    const { res, writes } = recordingResponse();
    return { writer: new WatchWriter(res, 1024 * 1024), writes };
  });
}

describe('WatchWriter', () => {
  it("writes a turn's events together when the turn ends", async () => {
    const watches = writers(3);
    for (const { writer } of watches) {
      writer.send(Buffer.from('a\n'));
      writer.send(Buffer.from('b\n'));
    }
    expect(watches.map(({ writes }) => writes)).toEqual([[], [], []]);
    await nextTurn();
    expect(watches.map(({ writes }) => writes)).toEqual([['a\nb\n'], ['a\nb\n'], ['a\nb\n']]);
  });

  it("writes them at once before a write's answer when at most 64 connections wait", async () => {
    const watches = writers(64);
    for (const { writer } of watches) writer.send(Buffer.from('a\n'));
    flushGatheredEventsIfFew();
    expect(watches.every(({ writes }) => writes.length === 1 && writes[0] === 'a\n')).toBe(true);
    // What comes later in the turn still goes out when it ends, once.
    watches[0].writer.send(Buffer.from('b\n'));
    await nextTurn();
    expect(watches[0].writes).toEqual(['a\n', 'b\n']);
    expect(watches.slice(1).every(({ writes }) => writes.length === 1)).toBe(true);
  });

  it('leaves a larger fan-out to the end of the turn, so the turn still shares one write', async () => {
    const watches = writers(65);
    for (const { writer } of watches) writer.send(Buffer.from('a\n'));
    flushGatheredEventsIfFew();
    for (const { writer } of watches) writer.send(Buffer.from('b\n'));
    expect(watches.every(({ writes }) => writes.length === 0)).toBe(true);
    await nextTurn();
    expect(watches.every(({ writes }) => writes.length === 1 && writes[0] === 'a\nb\n')).toBe(true);
  });
});
