/**
 * Shared plumbing for `npm run bench`: options, bounded concurrency, timing and plain-text tables.
 * Benchmarks measure competing variants side by side in one process, interleaved, and report
 * ratios; nothing here asserts on wall-clock time.
 */
import v8 from "node:v8";
import vm from "node:vm";

/**
 * A numeric flag of a benchmark. This one definition drives parsing, validation, the environment
 * fallback, the default and `--help`, so the help can never drift from what the benchmark reads.
 */
export type TBenchFlag = {
  /** `--<name>` on the command line, lower-case kebab. */
  name: string;
  /** Environment variable read when the flag is absent. */
  env: string;
  default: number;
  min: number;
  max: number;
  integer?: boolean;
  /** One line for `--help`. */
  description: string;
};

/** A flag that takes one of a few names (e.g. `--db pglite|postgres|both`); read it with `choiceOption`. */
export type TBenchChoiceFlag<TChoice extends string = string> = {
  name: string;
  env: string;
  default: TChoice;
  choices: readonly TChoice[];
  description: string;
};

export type TBenchAnyFlag = TBenchFlag | TBenchChoiceFlag;

export function isChoiceFlag(flag: TBenchAnyFlag): flag is TBenchChoiceFlag {
  return "choices" in flag;
}

export type TBenchmark = {
  name: string;
  /** One line for the header of `npm run bench` and for `--help`. */
  description: string;
  /** Every flag `run` reads; a flag not listed here is refused on the command line. */
  flags: readonly TBenchAnyFlag[];
  /** Checks that span several flags (e.g. min ≤ max); throws `BenchUsageError`. Runs before any benchmark. */
  validate?(args: TBenchArgs): void;
  run(args: TBenchArgs, out: (line: string) => void): Promise<void>;
};

export type TBenchArgs = {
  /** Benchmark names given on the command line (empty = all). */
  names: string[];
  /** `--key=value` / `--key value` flags, keys lower-case; only flags some benchmark defines. */
  flags: Map<string, string>;
  /** Where `numberOption` falls back to when a flag is absent (process.env outside tests). */
  env: Readonly<Record<string, string | undefined>>;
};

/** Bad command line or bad option value: `npm run bench` prints the message and exits 2. */
export class BenchUsageError extends Error {
  override name = "BenchUsageError";
}

export type TBenchCommand = { kind: "help"; text: string } | { kind: "run"; selected: TBenchmark[]; args: TBenchArgs };

const HELP_FLAGS = new Set(["--help", "-h"]);

/**
 * Reads `npm run bench` arguments against the benchmarks' own flag definitions: `--help`/`-h` wins over
 * everything else; unknown benchmark names, unknown flags, flags of benchmarks that are not selected,
 * repeated flags, missing values and out-of-range values (flag or environment) are a `BenchUsageError`,
 * before any benchmark starts.
 */
export function parseBenchCommand(
  argv: readonly string[],
  benchmarks: readonly TBenchmark[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): TBenchCommand {
  if (argv.some((a) => HELP_FLAGS.has(a))) return { kind: "help", text: benchHelp(benchmarks) };
  const owners = new Map<string, string[]>();
  for (const b of benchmarks) {
    for (const f of b.flags) owners.set(f.name, [...(owners.get(f.name) ?? []), b.name]);
  }
  const names: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("-")) {
      if (!benchmarks.some((b) => b.name === arg)) {
        throw new BenchUsageError(
          `Unknown benchmark "${arg}". Available: ${benchmarks.map((b) => b.name).join(", ")}.`,
        );
      }
      if (!names.includes(arg)) names.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const key = (eq > 0 ? arg.slice(0, eq) : arg).replace(/^--/, "").toLowerCase();
    if (!arg.startsWith("--") || !owners.has(key)) {
      throw new BenchUsageError(`Unknown flag "${eq > 0 ? arg.slice(0, eq) : arg}".`);
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("--")) {
        value = next;
        i++;
      }
    }
    if (value === undefined || value.trim() === "") throw new BenchUsageError(`--${key} needs a value.`);
    if (flags.has(key)) throw new BenchUsageError(`--${key} is given more than once.`);
    flags.set(key, value.trim());
  }
  const selected = names.length ? benchmarks.filter((b) => names.includes(b.name)) : [...benchmarks];
  for (const key of flags.keys()) {
    if (!selected.some((b) => b.flags.some((f) => f.name === key))) {
      throw new BenchUsageError(
        `--${key} belongs to ${owners.get(key)?.join(", ")}, which is not selected (selected: ${selected.map((b) => b.name).join(", ")}).`,
      );
    }
  }
  const args: TBenchArgs = { names, flags, env };
  // Resolve every option now so a bad value stops the run before a long benchmark, not in the middle.
  for (const b of selected) {
    for (const f of b.flags) {
      if (isChoiceFlag(f)) choiceOption(args, f);
      else numberOption(args, f);
    }
    b.validate?.(args);
  }
  return { kind: "run", selected, args };
}

/** The `--help` text, generated from the benchmarks' names, descriptions and flag definitions. */
export function benchHelp(benchmarks: readonly TBenchmark[]): string {
  const lines = [
    "Usage: npm run bench [-- [<benchmark>…] [--<flag> <value>…]]",
    "",
    "Runs every benchmark, or the named ones, against local fixtures only; compare the ratios, not the rates.",
    "A flag's environment variable is read when the flag is absent. See tests/bench/README.md.",
    "",
    "Benchmarks:",
    table([["name", "what it measures"], ...benchmarks.map((b) => [b.name, b.description])], "  ", "left"),
  ];
  for (const b of benchmarks) {
    lines.push("", `Flags of ${b.name}:`);
    if (!b.flags.length) {
      lines.push("  (none)");
      continue;
    }
    lines.push(
      table(
        [
          ["flag", "env", "default", "allowed", "meaning"],
          ...b.flags.map((f) =>
            isChoiceFlag(f)
              ? [`--${f.name} <name>`, f.env, f.default, f.choices.join(" | "), f.description]
              : [
                  `--${f.name} <n>`,
                  f.env,
                  String(f.default),
                  `${f.integer ? "integer" : "number"} ${f.min}–${f.max}`,
                  f.description,
                ],
          ),
        ],
        "  ",
        "left",
      ),
    );
  }
  lines.push("", "Other flags:", "  --help, -h  print this help and exit");
  return lines.join("\n");
}

/**
 * A numeric option: `--<flag>` on the command line, else its environment variable, else the default.
 * Rejects nonsense loudly rather than benchmarking something nobody asked for.
 */
export function numberOption(args: TBenchArgs, flag: TBenchFlag): number {
  const fromFlag = args.flags.get(flag.name);
  const raw = fromFlag ?? args.env[flag.env]?.trim();
  if (raw === undefined || raw === "") return flag.default;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < flag.min || value > flag.max || (flag.integer && !Number.isInteger(value))) {
    throw new BenchUsageError(
      `${fromFlag !== undefined ? `--${flag.name}` : flag.env} must be ${flag.integer ? "an integer" : "a number"} between ${flag.min} and ${flag.max} (got "${raw}").`,
    );
  }
  return value;
}

/** A named option: `--<flag>` on the command line, else its environment variable, else the default. */
export function choiceOption<TChoice extends string>(args: TBenchArgs, flag: TBenchChoiceFlag<TChoice>): TChoice {
  const fromFlag = args.flags.get(flag.name);
  const raw = (fromFlag ?? args.env[flag.env]?.trim())?.toLowerCase();
  if (raw === undefined || raw === "") return flag.default;
  const choice = flag.choices.find((c) => c === raw);
  if (choice === undefined) {
    throw new BenchUsageError(
      `${fromFlag !== undefined ? `--${flag.name}` : flag.env} must be one of ${flag.choices.join(", ")} (got "${fromFlag ?? args.env[flag.env]?.trim()}").`,
    );
  }
  return choice;
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

/** A left-aligned first column, right-aligned others (or all left); `rows[0]` is the header. */
export function table(
  rows: readonly (readonly string[])[],
  indent = "  ",
  align: "numbers" | "left" = "numbers",
): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (row: readonly string[]) =>
    indent +
    row
      .map((cell, i) => (i === 0 || align === "left" ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const [head, ...body] = rows;
  if (!head) return "";
  return [line(head), indent + widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

/** V8's full garbage collection, made callable without `--expose-gc` on the command line (benchmark use only). */
let gc: (() => void) | undefined;
function collectGarbage(): void {
  if (!gc) {
    v8.setFlagsFromString("--expose-gc");
    gc = vm.runInNewContext("gc") as () => void;
  }
  gc();
}

/**
 * Before a measured pass: collect what the harness itself left behind (the pages it just rendered for the round,
 * the previous pass's results) and give the database's background writers a moment, so that whichever side runs
 * first in a round does not pay for the harness's garbage (the side that went first was often the slower one,
 * whichever it was; tests/bench/README.md, "Batched final writes").
 */
export async function settleBeforePass(ms = 50): Promise<void> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, ms));
}
