/**
 * Shared plumbing for `npm run bench`: options, bounded concurrency, timing and plain-text tables.
 * Benchmarks measure competing variants side by side in one process, interleaved, and report
 * ratios; nothing here asserts on wall-clock time.
 */

export type TBenchArgs = {
  /** Benchmark names given on the command line (empty = all). */
  names: string[];
  /** `--key=value` / `--key value` flags, keys lower-case. */
  flags: Map<string, string>;
};

export function parseBenchArgs(argv: readonly string[]): TBenchArgs {
  const names: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) {
      names.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    if (eq > 0) {
      flags.set(arg.slice(2, eq).toLowerCase(), arg.slice(eq + 1));
    } else {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("--")) {
        flags.set(arg.slice(2).toLowerCase(), next);
        i++;
      } else {
        flags.set(arg.slice(2).toLowerCase(), "true");
      }
    }
  }
  return { names, flags };
}

/**
 * A numeric option: `--<flag>` on the command line, else the environment variable, else the default.
 * Rejects nonsense loudly rather than benchmarking something nobody asked for.
 */
export function numberOption(
  args: TBenchArgs,
  flag: string,
  envName: string,
  fallback: number,
  bounds: { min: number; max: number; integer?: boolean },
): number {
  const raw = args.flags.get(flag) ?? process.env[envName]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (
    !Number.isFinite(value) ||
    value < bounds.min ||
    value > bounds.max ||
    (bounds.integer && !Number.isInteger(value))
  ) {
    throw new Error(
      `--${flag} / ${envName} must be ${bounds.integer ? "an integer" : "a number"} between ${bounds.min} and ${bounds.max} (got "${raw}")`,
    );
  }
  return value;
}

/**
 * Runs `work` over every item with at most `concurrency` in flight; returns each item's latency (ms)
 * and result in item order. Rejections propagate (a benchmark that throws is broken, not slow).
 */
export async function runPool<TItem, TResult>(
  items: readonly TItem[],
  concurrency: number,
  work: (item: TItem, index: number) => Promise<TResult>,
): Promise<{ latencies: number[]; results: TResult[]; wallMs: number }> {
  const latencies = new Array<number>(items.length);
  const results = new Array<TResult>(items.length);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const t0 = performance.now();
      results[index] = await work(items[index] as TItem, index);
      latencies[index] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return { latencies, results, wallMs: performance.now() - started };
}

/** Formats numbers for reports: fixed decimals, thousands kept readable, NaN as "–". */
export function fmt(value: number, decimals = 1): string {
  if (!Number.isFinite(value)) return "–";
  return value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** A left-aligned first column, right-aligned others; `rows[0]` is the header. */
export function table(rows: readonly (readonly string[])[], indent = "  "): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (row: readonly string[]) =>
    indent +
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const [head, ...body] = rows;
  if (!head) return "";
  return [line(head), indent + widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

export type TBenchmark = {
  name: string;
  /** One line for the header of `npm run bench`. */
  description: string;
  run(args: TBenchArgs, out: (line: string) => void): Promise<void>;
};
