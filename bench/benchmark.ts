/**
 * The shape every benchmark module in bench/ shares, so the runner can list, filter and run
 * them and print their figures the same way. A benchmark reports its figures as tables (one per
 * backend, say) while it runs, so a long run shows progress.
 */

export interface ResultRow {
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  /** How the figure was taken (sample size, concurrency), when the metric name does not say. */
  readonly note?: string;
}

export interface ResultTable {
  readonly title: string;
  readonly rows: readonly ResultRow[];
}

/** Several servers' figures for the same metrics, with capstan's ratio to the reference and the goal. */
export interface ComparisonTable {
  readonly title: string;
  /** The servers, in the order of each row's values. */
  readonly columns: readonly string[];
  readonly rows: readonly ComparisonRow[];
}

export interface ComparisonRow {
  readonly metric: string;
  readonly values: readonly number[];
  readonly ratio: number;
  readonly goal: string;
}

export interface BenchmarkContext {
  /** Every parameter the benchmark declares: its default, or the value given on the command line. */
  readonly parameters: Readonly<Record<string, number>>;
  report(table: ResultTable): void;
  compare(table: ComparisonTable): void;
  /** Progress for the person waiting; not part of the results. */
  log(message: string): void;
}

export interface Benchmark {
  /** What `npm run bench -- <filter>` matches. */
  readonly name: string;
  readonly description: string;
  /** Sizes and durations it takes from the command line, `npm run bench -- <name> --<parameter> <value>`. */
  readonly parameters?: readonly BenchmarkParameter[];
  run(context: BenchmarkContext): Promise<void>;
}

/** A whole number a benchmark takes from the command line (`--pods 2000`), so a short smoke run is possible. */
export interface BenchmarkParameter {
  readonly name: string;
  readonly description: string;
  readonly defaultValue: number;
  /** The least value that makes sense (a whole number; 1 where the benchmark divides by it). */
  readonly minimum: number;
}
