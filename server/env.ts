import { z } from "zod";

/**
 * The one place that reads process.env. Everything else imports `getEnv()`.
 * Validation errors name the variable and never echo its value (it may be a secret).
 */

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const postgresUrl = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional()
  .refine((v) => v === undefined || /^postgres(ql)?:\/\/[^\s]+$/.test(v), {
    message: "must be a postgres:// or postgresql:// connection URL",
  })
  .refine((v) => v === undefined || URL.canParse(v), {
    message: "must be a valid postgres:// or postgresql:// connection URL",
  });

const httpUrl = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional()
  .refine((v) => v === undefined || (URL.canParse(v) && /^https?:$/.test(new URL(v).protocol)), {
    message: "must be an http:// or https:// URL",
  });

/** Comma-separated list, trimmed and lower-cased, empty entries dropped. */
const commaList = z
  .string()
  .trim()
  .default("")
  .transform((v) =>
    v
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );

export const AUTH_SECRET_MIN_LENGTH = 32;

export const ZEnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** Any PostgreSQL. Unset → embedded PGlite under DATA_DIR. */
  DATABASE_URL: postgresUrl,
  /** Where the embedded database lives. */
  DATA_DIR: z.string().trim().min(1).default("./.data"),
  /** `memory` keeps the embedded database in memory only (tests, throwaway demos). */
  PGLITE_STORAGE: z.enum(["disk", "memory"]).default("disk"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOSTNAME: z.string().trim().min(1).default("0.0.0.0"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),

  /** `rules` forces AI off even when a key is present. */
  AI_PROVIDER: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v), // `AI_PROVIDER=` in .env means unset
    z.enum(["auto", "openai", "openai-compatible", "rules"]).default("auto"),
  ),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: httpUrl,
  AI_MODEL: optionalString,
  AI_MODEL_DRAFTER: optionalString,
  AI_MODEL_FILLER: optionalString,
  AI_MODEL_JUDGE: optionalString,
  AI_MODEL_ENHANCER: optionalString,
  AI_EMBEDDING_MODEL: optionalString,

  /** Hosts (host or host:port) that web.scrape may reach even though they resolve to private/loopback addresses. */
  FETCH_ALLOW_HOSTS: commaList,
  FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  FETCH_MAX_BYTES: z.coerce.number().int().min(1024).max(100_000_000).default(5_000_000),
  FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
  GOOGLE_MAPS_API_KEY: optionalString,
  GOOGLE_PLACES_BASE_URL: httpUrl.default("https://places.googleapis.com"),
  /** Open-Meteo forecast API origin (a local fixture in tests). */
  OPEN_METEO_BASE_URL: httpUrl.default("https://api.open-meteo.com"),
  /** Feed enhancement waits this long for changes to settle before calling the model. */
  FEED_ENHANCE_DEBOUNCE_MS: z.coerce.number().int().min(0).max(60_000).default(500),

  /** Bearer secret for /api/cron/refresh (Vercel sends it). Unset → the cron route refuses with 503. */
  CRON_SECRET: optionalString,
  /** Scheduled refresh (cron route and worker): no new refresh starts after this many ms per call/tick. */
  REFRESH_BUDGET_MS: z.coerce.number().int().min(1000).max(900_000).default(45_000),
  /** Scheduled refreshes in flight at once per process. */
  REFRESH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** How long the worker sleeps when nothing is due (plus jitter). */
  WORKER_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),

  /**
   * Signs session cookies. Required in production with DATABASE_URL; with the embedded database it is generated
   * once into DATA_DIR/auth-secret (0600) when unset (server/auth/auth-secret.ts).
   */
  AUTH_SECRET: optionalString.refine((v) => v === undefined || v.length >= AUTH_SECRET_MIN_LENGTH, {
    message: `must be at least ${AUTH_SECRET_MIN_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`,
  }),
  /** The public URL people open (https://bellwether.example.com). Its host is allowed; https → Secure cookies. */
  APP_URL: httpUrl,
  /** Extra Host headers to answer (host or host:port), besides localhost, 127.0.0.1, [::1] and APP_URL's host. */
  ALLOWED_HOSTS: commaList,
});

export type TEnv = z.infer<typeof ZEnvSchema>;

export class EnvError extends Error {
  override name = "EnvError";
}

/** Parses an environment; throws an EnvError whose message is one line naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined>): TEnv {
  const result = ZEnvSchema.safeParse(source);
  const problems = result.success
    ? crossFieldProblems(result.data)
    : result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
  if (result.success && problems.length === 0) return result.data;
  throw new EnvError(`Invalid configuration: ${problems.join("; ")}`);
}

/** Rules that span variables. */
function crossFieldProblems(env: TEnv): string[] {
  const problems: string[] = [];
  // The embedded database keeps a generated secret beside its data; a shared PostgreSQL serves several
  // instances, which must all sign cookies with the same configured secret.
  if (env.NODE_ENV === "production" && env.DATABASE_URL && !env.AUTH_SECRET) {
    problems.push(
      `AUTH_SECRET is required in production with DATABASE_URL (at least ${AUTH_SECRET_MIN_LENGTH} characters, e.g. \`openssl rand -base64 32\`)`,
    );
  }
  return problems;
}

/** For command-line entry points (start, worker, demo): a bad configuration prints its one line and exits 1. */
export function parseEnvOrExit(source: Record<string, string | undefined> = process.env): TEnv {
  try {
    return parseEnv(source);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

let cached: TEnv | undefined;

export function getEnv(): TEnv {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Tests change the environment between cases; this drops the memoised copy. */
export function resetEnvForTests(): void {
  cached = undefined;
}
