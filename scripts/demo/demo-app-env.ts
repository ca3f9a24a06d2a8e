import fs from "node:fs";
import path from "node:path";
import { parseEnv as parseDotEnv } from "node:util";
import type { TEnv } from "../../server/env";

type TEnvSource = Record<string, string | undefined>;

/** The steps `npm run demo` plays at once on a fresh database, so every tracker has a timeline within a minute. */
export const PRELUDE_STEPS = 4;

/** server/env.ts's upper bound for a rate limit. */
const MAX_LIMIT = 1_000_000;

/**
 * What the app's .env files set, read the way `npm start` loads them (scripts/start.ts: the first file naming a
 * variable wins; the real environment wins over every file) without loading them into this process — so the demo
 * sees the person's own settings (PORT, FETCH_ALLOW_HOSTS, RATE_LIMIT_REFRESHES) where the app will see them.
 */
export function readDotEnvFiles(root: string): TEnvSource {
  const found: TEnvSource = {};
  for (const file of [".env.production.local", ".env.local", ".env.production", ".env"]) {
    const full = path.join(root, file);
    if (!fs.existsSync(full)) continue;
    for (const [name, value] of Object.entries(parseDotEnv(fs.readFileSync(full, "utf8")))) found[name] ??= value;
  }
  return found;
}

/**
 * The most refreshes the demo asks for through the API within one rate-limit window: each tracker once plus once per
 * prelude step, all at once, then each tracker once per tick — and a fixed window of W s holds at most ⌈W / tick⌉
 * ticks (a tick starts a whole tick after the previous one ended).
 */
export function demoRefreshesPerWindow(input: {
  trackers: number;
  preludeSteps: number;
  tickSeconds: number;
  windowSeconds: number;
}): number {
  const ticks = Math.ceil(input.windowSeconds / input.tickSeconds);
  return input.trackers * (1 + input.preludeSteps + ticks);
}

export type TDemoRefreshLimit = {
  limit: number;
  windowSeconds: number;
  /** What the demo's own refreshes need per window (demoRefreshesPerWindow). */
  demoNeeds: number;
  /** "you": RATE_LIMIT_REFRESHES was set (environment or .env) and is kept. */
  setBy: "demo" | "you";
};

/**
 * The refresh limit the demo starts its app with. The limit is per person (docs/configuration.md,
 * RATE_LIMIT_REFRESHES) and the demo's owner makes every one of the demo's refreshes, so the default (20 a minute)
 * cannot hold the prelude and a tick. The demo adds what it needs to the usual allowance: the person's own
 * "Refresh now" clicks are limited as they would be. A value the person set is theirs, kept as it is (0 = no limit);
 * the demo then waits out a 429 (demo-api.ts).
 */
export function demoRefreshLimit(input: {
  seen: TEnvSource;
  env: Pick<TEnv, "RATE_LIMIT_REFRESHES" | "RATE_LIMIT_REFRESH_WINDOW_SECONDS">;
  trackers: number;
  tickSeconds: number;
}): TDemoRefreshLimit {
  const windowSeconds = input.env.RATE_LIMIT_REFRESH_WINDOW_SECONDS;
  const demoNeeds = demoRefreshesPerWindow({
    trackers: input.trackers,
    preludeSteps: PRELUDE_STEPS,
    tickSeconds: input.tickSeconds,
    windowSeconds,
  });
  if (input.seen.RATE_LIMIT_REFRESHES !== undefined) {
    return { limit: input.env.RATE_LIMIT_REFRESHES, windowSeconds, demoNeeds, setBy: "you" };
  }
  const limit = Math.min(MAX_LIMIT, demoNeeds + input.env.RATE_LIMIT_REFRESHES);
  return { limit, windowSeconds, demoNeeds, setBy: "demo" };
}

/**
 * The settings the demo gives the app on top of the person's environment (docs/operations.md, "The demo"): allowed to fetch the demo
 * site, its own embedded database in ./.data-demo (unless DATABASE_URL or DATA_DIR is set, or --keep-data-dir), and
 * a refresh limit that fits the demo. No CRON_SECRET: the app's own scheduler refreshes due trackers (docs/scheduling.md
 * "Setting up each driver"), so the demo calls no cron route.
 */
export function demoAppEnv(input: {
  /** The demo's own environment (process.env). */
  processEnv: TEnvSource;
  /** The person's settings as the app will see them: the environment over the .env files, and parsed. */
  seen: TEnvSource;
  env: Pick<TEnv, "FETCH_ALLOW_HOSTS" | "DATABASE_URL" | "RATE_LIMIT_REFRESHES" | "RATE_LIMIT_REFRESH_WINDOW_SECONDS">;
  sitePort: number;
  tickSeconds: number;
  trackers: number;
  keepDataDir: boolean;
}): { overrides: Record<string, string>; refreshLimit: TDemoRefreshLimit } {
  const refreshLimit = demoRefreshLimit(input);
  const ownDb = !input.env.DATABASE_URL && !input.keepDataDir && !input.processEnv.DATA_DIR;
  return {
    overrides: {
      FETCH_ALLOW_HOSTS: [...input.env.FETCH_ALLOW_HOSTS, `127.0.0.1:${input.sitePort}`].join(","),
      ...(ownDb ? { DATA_DIR: "./.data-demo" } : {}),
      ...(refreshLimit.setBy === "demo" ? { RATE_LIMIT_REFRESHES: String(refreshLimit.limit) } : {}),
    },
    refreshLimit,
  };
}

/** One line for the console: the limit the app runs with, and why. */
export function describeRefreshLimit(limit: TDemoRefreshLimit): string {
  const per = `per ${limit.windowSeconds} s`;
  if (limit.setBy === "demo") {
    return `refresh limit ${limit.limit} ${per}: the demo's ${limit.demoNeeds} plus the usual allowance for your own clicks`;
  }
  if (limit.limit === 0 || limit.limit >= limit.demoNeeds)
    return `refresh limit: your RATE_LIMIT_REFRESHES=${limit.limit}`;
  return `refresh limit: your RATE_LIMIT_REFRESHES=${limit.limit} ${per} is below the demo's ${limit.demoNeeds}; it waits when refused`;
}
