/**
 * V8's profiles (the CPU profile and the sampling heap profile the inspector hands out) in
 * pprof's format: a gzipped `perftools.profiles.Profile` protobuf, what `go tool pprof` and
 * every pprof viewer read, and what the reference's /debug/pprof/ serves. Written with
 * protobufjs's Writer: the message is small and fixed (profile.proto), and no maintained
 * library converts V8's profiles without native code.
 */
import { gzipSync } from 'node:zlib';
import { Writer } from 'protobufjs/minimal';

/** A call frame as V8 reports it (Runtime.CallFrame): lines and columns count from 0. */
export interface V8CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

/** One stack of frames, leaf first, and its values (one per sample type). */
export interface StackSample {
  readonly frames: readonly V8CallFrame[];
  readonly values: readonly number[];
}

export interface ProfileData {
  /** `[type, unit]` of each value, e.g. `['cpu', 'nanoseconds']`. */
  readonly sampleTypes: readonly (readonly [string, string])[];
  readonly samples: readonly StackSample[];
  readonly periodType: readonly [string, string];
  readonly period: number;
  readonly timeNanos: number;
  readonly durationNanos: number;
}

export function encodePprof(profile: ProfileData): Buffer {
  const strings = new Map<string, number>([['', 0]]);
  const string = (text: string): number => {
    let index = strings.get(text);
    if (index === undefined) {
      index = strings.size;
      strings.set(text, index);
    }
    return index;
  };
  const functions = new Map<string, { id: number; name: number; file: number }>();
  const locations = new Map<string, { id: number; functionId: number; line: number }>();
  const locationOf = (frame: V8CallFrame): number => {
    const functionName = frame.functionName || '(anonymous)';
    const functionKey = `${functionName}\u0000${frame.url}`;
    let fn = functions.get(functionKey);
    if (fn === undefined) {
      fn = { id: functions.size + 1, name: string(functionName), file: string(frame.url) };
      functions.set(functionKey, fn);
    }
    const line = frame.lineNumber + 1;
    const locationKey = `${fn.id}:${line}`;
    let location = locations.get(locationKey);
    if (location === undefined) {
      location = { id: locations.size + 1, functionId: fn.id, line };
      locations.set(locationKey, location);
    }
    return location.id;
  };

  const writer = Writer.create();
  const valueType = (field: number, [type, unit]: readonly [string, string]) => {
    writer
      .uint32((field << 3) | 2)
      .fork()
      .uint32(8)
      .int64(string(type))
      .uint32(16)
      .int64(string(unit))
      .ldelim();
  };
  for (const sampleType of profile.sampleTypes) valueType(1, sampleType);
  // Its strings go in the table, which is written before the period type itself.
  for (const text of profile.periodType) string(text);
  for (const sample of profile.samples) {
    writer.uint32(18).fork();
    writer.uint32(10).fork();
    for (const frame of sample.frames) writer.uint64(locationOf(frame));
    writer.ldelim();
    writer.uint32(18).fork();
    for (const value of sample.values) writer.int64(Math.round(value));
    writer.ldelim();
    writer.ldelim();
  }
  for (const location of locations.values()) {
    writer.uint32(34).fork().uint32(8).uint64(location.id);
    writer.uint32(34).fork().uint32(8).uint64(location.functionId).uint32(16).int64(location.line).ldelim();
    writer.ldelim();
  }
  for (const fn of functions.values()) {
    writer
      .uint32(42)
      .fork()
      .uint32(8)
      .uint64(fn.id)
      .uint32(16)
      .int64(fn.name)
      .uint32(24)
      .int64(fn.name)
      .uint32(32)
      .int64(fn.file)
      .ldelim();
  }
  for (const text of strings.keys()) writer.uint32(50).string(text);
  writer.uint32(72).int64(profile.timeNanos);
  writer.uint32(80).int64(profile.durationNanos);
  valueType(11, profile.periodType);
  writer.uint32(96).int64(profile.period);
  return gzipSync(writer.finish());
}

/** V8's CPU profile (Profiler.Profile). */
export interface V8CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: V8CallFrame;
    readonly children?: readonly number[];
  }[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
}

/** Samples per stack, each worth `intervalMicros` of CPU: pprof's `samples/count` and `cpu/nanoseconds`. */
export function cpuProfileData(profile: V8CpuProfile, intervalMicros: number): ProfileData {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const hits = new Map<number, number>();
  for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
  const periodNanos = intervalMicros * 1000;
  const samples: StackSample[] = [];
  for (const [id, count] of hits) {
    const frames: V8CallFrame[] = [];
    // Up to, not including, V8's synthetic "(root)".
    for (let at: number | undefined = id; at !== undefined && parent.has(at); at = parent.get(at))
      frames.push(byId.get(at)!.callFrame);
    if (frames.length > 0) samples.push({ frames, values: [count, count * periodNanos] });
  }
  return {
    sampleTypes: [
      ['samples', 'count'],
      ['cpu', 'nanoseconds'],
    ],
    samples,
    periodType: ['cpu', 'nanoseconds'],
    period: periodNanos,
    timeNanos: Math.round(Date.now() * 1e6 - (profile.endTime - profile.startTime) * 1e3),
    durationNanos: Math.round((profile.endTime - profile.startTime) * 1e3),
  };
}

/** V8's sampling heap profile node (HeapProfiler.SamplingHeapProfileNode). */
export interface V8HeapNode {
  readonly callFrame: V8CallFrame;
  readonly selfSize: number;
  readonly children: readonly V8HeapNode[];
}

/** The bytes sampled allocations still hold, per stack: pprof's `inuse_space/bytes`. */
export function heapProfileData(head: V8HeapNode, durationNanos: number, intervalBytes: number): ProfileData {
  const samples: StackSample[] = [];
  const walk = (node: V8HeapNode, stack: readonly V8CallFrame[]) => {
    const frames = [node.callFrame, ...stack];
    if (node.selfSize > 0) samples.push({ frames, values: [node.selfSize] });
    for (const child of node.children) walk(child, frames);
  };
  // The head is V8's synthetic "(root)".
  for (const child of head.children) walk(child, []);
  return {
    sampleTypes: [['inuse_space', 'bytes']],
    samples,
    periodType: ['space', 'bytes'],
    period: intervalBytes,
    timeNanos: Math.round(Date.now() * 1e6),
    durationNanos,
  };
}
