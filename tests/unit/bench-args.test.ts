import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { feedBenchmark } from "../bench/feed.bench";
import {
  BenchUsageError,
  benchHelp,
  choiceOption,
  isChoiceFlag,
  numberOption,
  parseBenchCommand,
  type TBenchChoiceFlag,
  type TBenchFlag,
  type TBenchmark,
} from "../bench/harness";
import { peerBenchmark } from "../bench/peer.bench";
import { refreshBenchmark } from "../bench/refresh.bench";

const flag = (name: string, extra: Partial<TBenchFlag> = {}): TBenchFlag => ({
  name,
  env: `BENCH_${name.toUpperCase().replaceAll("-", "_")}`,
  default: 5,
  min: 1,
  max: 100,
  integer: true,
  description: `the ${name}`,
  ...extra,
});

const alpha: TBenchmark = {
  name: "alpha",
  description: "first bench",
  flags: [flag("count"), flag("rate", { integer: false, min: 0, max: 1, default: 0.5 })],
  run: vi.fn(),
};
const beta: TBenchmark = {
  name: "beta",
  description: "second bench",
  flags: [flag("rounds")],
  validate: (args) => {
    if (args.flags.get("rounds") === "13") throw new BenchUsageError("unlucky");
  },
  run: vi.fn(),
};
const colour: TBenchChoiceFlag<"red" | "green" | "blue"> = {
  name: "colour",
  env: "BENCH_COLOUR",
  default: "red",
  choices: ["red", "green", "blue"],
  description: "the colour",
};
const gamma: TBenchmark = { name: "gamma", description: "third bench", flags: [colour, flag("count")], run: vi.fn() };
const BENCHES = [alpha, beta, gamma];

function run(argv: string[], env: Record<string, string> = {}) {
  const command = parseBenchCommand(argv, BENCHES, env);
  if (command.kind !== "run") throw new Error(`expected a run, got ${command.kind}`);
  return command;
}

function usageError(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseBenchCommand(argv, BENCHES, env);
  } catch (error) {
    expect(error).toBeInstanceOf(BenchUsageError);
    return (error as Error).message;
  }
  throw new Error(`no usage error for ${argv.join(" ")}`);
}

describe("parseBenchCommand", () => {
  it("selects every benchmark without names, the named ones otherwise, in definition order", () => {
    expect(run([]).selected.map((b) => b.name)).toEqual(["alpha", "beta", "gamma"]);
    expect(run(["beta"]).selected.map((b) => b.name)).toEqual(["beta"]);
    expect(run(["beta", "alpha", "beta"]).args.names).toEqual(["beta", "alpha"]);
  });

  it("reads --flag value and --flag=value, case-insensitively", () => {
    const { args } = run(["alpha", "--count", "7", "--RATE=0.25"]);
    expect([...args.flags]).toEqual([
      ["count", "7"],
      ["rate", "0.25"],
    ]);
    expect(numberOption(args, alpha.flags[0] as TBenchFlag)).toBe(7);
    expect(numberOption(args, alpha.flags[1] as TBenchFlag)).toBe(0.25);
  });

  it("falls back to the environment variable, then to the default", () => {
    const { args } = run([], { BENCH_COUNT: "9" });
    expect(numberOption(args, alpha.flags[0] as TBenchFlag)).toBe(9);
    expect(numberOption(args, beta.flags[0] as TBenchFlag)).toBe(5);
    const both = run(["--count", "3"], { BENCH_COUNT: "9" });
    expect(numberOption(both.args, alpha.flags[0] as TBenchFlag)).toBe(3);
  });

  it("answers --help and -h with the help, whatever else is on the line, and runs nothing", () => {
    for (const argv of [["--help"], ["-h"], ["alpha", "--bogus", "--help"], ["nope", "-h"]]) {
      const command = parseBenchCommand(argv, BENCHES, {});
      expect(command).toEqual({ kind: "help", text: benchHelp(BENCHES) });
    }
    expect(alpha.run).not.toHaveBeenCalled();
    expect(beta.run).not.toHaveBeenCalled();
  });

  it("refuses unknown names and flags", () => {
    expect(usageError(["delta"])).toBe('Unknown benchmark "delta". Available: alpha, beta, gamma.');
    expect(usageError(["--bogus"])).toBe('Unknown flag "--bogus".');
    expect(usageError(["--bogus=1"])).toBe('Unknown flag "--bogus".');
    expect(usageError(["-x"])).toBe('Unknown flag "-x".');
    expect(usageError(["-count", "3"])).toBe('Unknown flag "-count".');
  });

  it("refuses a flag of a benchmark that is not selected, a missing value and a repeated flag", () => {
    expect(usageError(["alpha", "--colour", "red"])).toBe(
      "--colour belongs to gamma, which is not selected (selected: alpha).",
    );
    expect(usageError(["alpha", "--rounds", "3"])).toBe(
      "--rounds belongs to beta, which is not selected (selected: alpha).",
    );
    expect(usageError(["--count"])).toBe("--count needs a value.");
    expect(usageError(["--count", "--rate", "0.1"])).toBe("--count needs a value.");
    expect(usageError(["--count="])).toBe("--count needs a value.");
    expect(usageError(["--count", "2", "--count=3"])).toBe("--count is given more than once.");
  });

  it("refuses out-of-range values from flags and the environment before anything runs", () => {
    expect(usageError(["--count", "0"])).toBe('--count must be an integer between 1 and 100 (got "0").');
    expect(usageError(["--count", "2.5"])).toBe('--count must be an integer between 1 and 100 (got "2.5").');
    expect(usageError(["--rate", "abc"])).toBe('--rate must be a number between 0 and 1 (got "abc").');
    expect(usageError([], { BENCH_ROUNDS: "1000" })).toBe(
      'BENCH_ROUNDS must be an integer between 1 and 100 (got "1000").',
    );
    // Only the selected benchmarks' environment counts.
    expect(run(["alpha"], { BENCH_ROUNDS: "1000" }).selected.map((b) => b.name)).toEqual(["alpha"]);
    expect(usageError(["--rounds", "13"])).toBe("unlucky");
  });
});

describe("choice flags", () => {
  it("read a name from the flag (any case), else the environment, else the default", () => {
    expect(choiceOption(run(["gamma", "--colour", "Green"]).args, colour)).toBe("green");
    expect(choiceOption(run(["gamma"], { BENCH_COLOUR: "blue" }).args, colour)).toBe("blue");
    expect(choiceOption(run(["gamma"]).args, colour)).toBe("red");
  });

  it("refuse a name that is not a choice, from the flag or the environment, before anything runs", () => {
    expect(usageError(["gamma", "--colour", "pink"])).toBe('--colour must be one of red, green, blue (got "pink").');
    expect(usageError(["gamma"], { BENCH_COLOUR: "7" })).toBe(
      'BENCH_COLOUR must be one of red, green, blue (got "7").',
    );
    expect(usageError(["gamma", "--colour"])).toBe("--colour needs a value.");
  });

  it("show their choices in --help", () => {
    const line = benchHelp([gamma])
      .split("\n")
      .find((l) => l.trimStart().startsWith("--colour "));
    expect(line).toContain("--colour <name>");
    expect(line).toContain("BENCH_COLOUR");
    expect(line).toContain("red | green | blue");
  });
});

describe("the real benchmarks", () => {
  const real = [feedBenchmark, refreshBenchmark, peerBenchmark];

  it("list every flag they read in --help, with its variable, default and range", () => {
    const all = benchHelp(real);
    for (const b of real) {
      expect(all).toContain(b.description);
      expect(b.flags.length).toBeGreaterThan(0);
      // Benchmarks may share a flag name (--rounds) with their own variable and default: read each one's own section.
      const text = all.slice(all.indexOf(`Flags of ${b.name}:`));
      for (const f of b.flags) {
        const line = text.split("\n").find((l) => l.trimStart().startsWith(`--${f.name} `));
        expect(line, f.name).toBeDefined();
        expect(line).toContain(f.env);
        expect(line).toContain(f.description);
        expect(line).toContain(isChoiceFlag(f) ? f.choices.join(" | ") : `${f.min}–${f.max}`);
        expect(line?.split(/\s{2,}/)).toContain(String(f.default));
      }
    }
  });

  it("refuse --db postgres without TEST_DATABASE_URL, before anything runs", () => {
    expect(() => parseBenchCommand(["refresh", "--db", "postgres"], real, {})).toThrow(
      "--db postgres needs TEST_DATABASE_URL",
    );
    const command = parseBenchCommand(["refresh", "--db", "both"], real, {
      TEST_DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/postgres",
    });
    expect(command.kind).toBe("run");
  });

  it("accept their own defaults and reject crossed page sizes", () => {
    const command = parseBenchCommand(["refresh", "--min-kb", "10", "--max-kb", "12"], real, {});
    expect(command.kind).toBe("run");
    expect(() => parseBenchCommand(["refresh", "--min-kb", "60"], real, {})).toThrow(
      "--max-kb (50) must not be smaller than --min-kb (60).",
    );
  });
});

describe("npm run bench", () => {
  const exec = promisify(execFile);
  const bench = (...argv: string[]) =>
    exec(process.execPath, ["--import", "tsx", "tests/bench/index.ts", ...argv], {
      env: { ...process.env, BENCH_TRACKERS: "" },
      timeout: 60_000,
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it("--help prints the benchmarks and flags and exits 0 without running anything", async () => {
    const r = await bench("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--feed-iterations <n>");
    expect(r.stdout).toContain("--trackers <n>");
    expect(r.stdout).not.toContain("Bellwether benchmarks");
  }, 60_000);

  it("exits 2 with a message for an unknown flag or benchmark", async () => {
    const flagRun = await bench("feed", "--bogus");
    expect(flagRun.code).toBe(2);
    expect(flagRun.stderr).toContain('Unknown flag "--bogus".');
    expect(flagRun.stdout).not.toContain("Bellwether benchmarks");
    const nameRun = await bench("nope");
    expect(nameRun.code).toBe(2);
    expect(nameRun.stderr).toContain('Unknown benchmark "nope"');
  }, 60_000);
});
