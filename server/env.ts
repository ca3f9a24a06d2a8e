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

/** The words TRUSTED_PROXIES accepts besides addresses and ranges: loopback, and the private ranges (RFC 1918, RFC 4193). */
export const TRUSTED_PROXY_WORDS = {
  loopback: ["127.0.0.0/8", "::1/128"],
  private: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
} as const;

const isTrustedProxyWord = (entry: string): entry is keyof typeof TRUSTED_PROXY_WORDS =>
  Object.hasOwn(TRUSTED_PROXY_WORDS, entry);

function isTrustedProxyEntry(entry: string): boolean {
  if (isTrustedProxyWord(entry)) return true;
  return [z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()].some((schema) => schema.safeParse(entry).success);
}

const ZEnvObjectSchema = z.object({
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
  /**
   * Politeness per host (docs/scheduling.md): calls to one host in flight at once, the least gap between the starts of
   * two calls to it, and how long a waiting call stays while no call to that host starts or ends before it is answered
   * "busy" (the refresh retries later).
   */
  HOST_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(64).default(2),
  HOST_MIN_GAP_MS: z.coerce.number().int().min(0).max(60_000).default(250),
  HOST_MAX_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(5_000),
  /** Page reading (parse, structured document, CSS extractors) runs in this many worker threads (unset: 2, at most cores − 1). */
  PAGE_WORKERS: z.coerce.number().int().min(1).max(16).optional(),
  /** Time budget to read one page in a worker; over it the worker is terminated and the run fails. */
  PAGE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Heap cap of each page worker (MB); a page that needs more fails its run, the server is unaffected. */
  PAGE_MEMORY_MB: z.coerce.number().int().min(32).max(4096).default(256),
  /**
   * Pages that need a browser (web.scrape `render`): a local Chromium/Chrome executable (Debian: /usr/bin/chromium)
   * or a remote CDP endpoint (ws:// or wss://, e.g. a hosted browser) for serverless hosts where none can run.
   * Neither set → pages are read with a plain fetch only and `render: "always"` fails with NOT_CONFIGURED.
   */
  BROWSER_EXECUTABLE_PATH: optionalString.refine(
    (v) => v === undefined || v.startsWith("/") || /^[A-Za-z]:[\\/]/.test(v),
    {
      message: "must be an absolute path to a Chromium or Chrome executable (e.g. /usr/bin/chromium)",
    },
  ),
  BROWSER_WS_ENDPOINT: optionalString.refine(
    (v) => v === undefined || (URL.canParse(v) && /^(wss?|https?):$/.test(new URL(v).protocol)),
    { message: "must be a ws://, wss:// (or http(s)://) CDP endpoint URL" },
  ),
  /** Pages rendered at once per process (each is a browser tab). */
  BROWSER_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** Time budget for one rendered page (navigation, wait conditions, DOM read); over it the run fails with TIMEOUT. */
  BROWSER_PAGE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(20_000),
  /** The browser process is restarted after this many pages (and whenever it crashes or disconnects). */
  BROWSER_RESTART_AFTER_PAGES: z.coerce.number().int().min(1).max(100_000).default(100),
  GOOGLE_MAPS_API_KEY: optionalString,
  GOOGLE_PLACES_BASE_URL: httpUrl.default("https://places.googleapis.com"),
  /** Open-Meteo forecast API origin (a local fixture in tests). */
  OPEN_METEO_BASE_URL: httpUrl.default("https://api.open-meteo.com"),
  /** Open-Meteo geocoding API origin for Settings' place search (a local fixture in tests). */
  GEOCODING_BASE_URL: httpUrl.default("https://geocoding-api.open-meteo.com"),
  /** Feed enhancement waits this long for changes to settle before calling the model. */
  FEED_ENHANCE_DEBOUNCE_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /** A feed visit ends after this long without a view; "new since you last looked" counts from the last visit. */
  FEED_VISIT_GAP_MS: z.coerce.number().int().min(1000).max(604_800_000).default(1_800_000),

  /** Bearer secret for /api/cron/refresh (Vercel sends it). Unset → the cron route refuses with 503. */
  CRON_SECRET: optionalString,
  /** Scheduled refresh (cron route and worker): no new refresh starts after this many ms per call/tick. */
  REFRESH_BUDGET_MS: z.coerce.number().int().min(1000).max(900_000).default(45_000),
  /** Scheduled refreshes in flight at once per process. */
  REFRESH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * The scheduler inside the server process (docs/scheduling.md): `auto` runs it except on a serverless host, where
   * Vercel Cron calls /api/cron/refresh instead; `on` / `off` force it (off: a cron call or `npm run worker` schedules).
   */
  SCHEDULER: z.enum(["auto", "on", "off"]).default("auto"),
  /** How long a scheduler (the server's or `npm run worker`) sleeps when nothing is due, ±20%; see schedulerPollMs. */
  SCHEDULER_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).optional(),
  /** The older name of SCHEDULER_POLL_MS, still honoured when that is unset. */
  WORKER_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).optional(),
  /**
   * Retention (docs/design.md §4): unchanged and skipped refresh runs older than this many days are summed per tracker per day
   * (RunDailyStat) and deleted with their usage-ledger rows; runs the timeline references and failed runs are kept.
   */
  RUN_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(14),
  /**
   * Retention of captures (replay's input, docs/replay.md): captures last seen within this many days are all kept; older
   * ones no kept change references are thinned to the last of each day per entity (each entity's latest always stays).
   */
  CAPTURE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(90),

  /**
   * Costly endpoints are rate-limited per person (docs/design.md §9), counted in the database so every instance shares
   * the count: setup chat turns per window, and refreshes ("Refresh now" and POST /api/v1/…/refresh together).
   * 0 turns a limit off.
   */
  RATE_LIMIT_SETUP_TURNS: z.coerce.number().int().min(0).max(1_000_000).default(30),
  RATE_LIMIT_SETUP_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(600),
  RATE_LIMIT_REFRESHES: z.coerce.number().int().min(0).max(1_000_000).default(20),
  RATE_LIMIT_REFRESH_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** Replays over stored history (docs/replay.md: the page's stream, tRPC and POST /api/v1/…/replay together; plans are free). */
  RATE_LIMIT_REPLAYS: z.coerce.number().int().min(0).max(1_000_000).default(10),
  RATE_LIMIT_REPLAY_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /**
   * Model tokens (input + output) each person may spend per calendar month (UTC), read from the usage ledger;
   * when spent, model calls stop (refreshes that need one fail, setup answers in rules mode, the feed is not
   * enhanced) until the month turns. Unset = unlimited.
   */
  AI_MONTHLY_TOKEN_BUDGET: z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
    z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  ),

  /**
   * Context files (docs/design.md §3): the largest file a person may attach, how many per tracker, which kinds (any of
   * text, markdown, csv, pdf, docx) and how much extracted text one file may hold (bounds its chunks).
   */
  CONTEXT_FILE_MAX_BYTES: z.coerce.number().int().min(1_000).max(100_000_000).default(5_000_000),
  CONTEXT_FILES_PER_TRACKER: z.coerce.number().int().min(1).max(1_000).default(20),
  CONTEXT_FILE_KINDS: commaList.pipe(
    z
      .array(z.enum(["text", "markdown", "csv", "pdf", "docx"]))
      .transform((kinds) => (kinds.length > 0 ? kinds : (["text", "markdown", "csv", "pdf", "docx"] as const))),
  ),
  CONTEXT_MAX_TEXT_CHARS: z.coerce.number().int().min(1_000).max(20_000_000).default(1_000_000),
  /**
   * Reading an uploaded file runs in its own worker thread (docs/context-files.md): its time budget, its heap cap, and
   * the most pages a PDF may have. Over any of them the upload is refused with the limit named.
   */
  CONTEXT_EXTRACT_TIMEOUT_MS: z.coerce.number().int().min(500).max(300_000).default(30_000),
  CONTEXT_EXTRACT_MEMORY_MB: z.coerce.number().int().min(64).max(4096).default(256),
  CONTEXT_PDF_MAX_PAGES: z.coerce.number().int().min(1).max(100_000).default(500),

  /** `npm start`: how long to keep retrying an unreachable DATABASE_URL before giving up (0 = try once). */
  DATABASE_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** On SIGTERM/SIGINT: how long in-flight requests and refreshes may take to finish before they are cut. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** Set (by `npm start`) when the app, not `next start`, handles SIGTERM/SIGINT: then the graceful shutdown runs. */
  NEXT_MANUAL_SIG_HANDLE: optionalString,
  /** Set by serverless hosts (Vercel; AWS Lambda and the hosts built on it): no disk outlives a request there. */
  VERCEL: optionalString,
  AWS_LAMBDA_FUNCTION_NAME: optionalString,

  /**
   * Signs session cookies. Required in production with DATABASE_URL; with the embedded database it is generated
   * once into DATA_DIR/auth-secret (0600) when unset (server/auth/auth-secret.ts).
   */
  AUTH_SECRET: optionalString.refine((v) => v === undefined || v.length >= AUTH_SECRET_MIN_LENGTH, {
    message: `must be at least ${AUTH_SECRET_MIN_LENGTH} characters (e.g. \`openssl rand -base64 32\`)`,
  }),
  /** The public URL people open (https://bellwether.example.com). Its host is allowed; https → Secure cookies. */
  APP_URL: httpUrl,
  /**
   * Notifications by email (server/notifications): SMTP_URL (smtp://user:pass@host:587, smtps://… for TLS), or
   * SMTP_HOST with SMTP_PORT / SMTP_USER / SMTP_PASSWORD / SMTP_SECURE. SMTP_FROM is the sender. Unset → email
   * channels cannot be added (the other channels still work).
   */
  SMTP_URL: optionalString.refine(
    (v) => v === undefined || (URL.canParse(v) && /^smtps?:$/.test(new URL(v).protocol)),
    {
      message: "must be an smtp:// or smtps:// URL",
    },
  ),
  SMTP_HOST: optionalString,
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(587),
  SMTP_USER: optionalString,
  SMTP_PASSWORD: optionalString,
  SMTP_SECURE: z
    .enum(["true", "false", ""])
    .default("")
    .transform((v) => v === "true"),
  SMTP_FROM: optionalString,
  /** A channel pauses after this many consecutive failed deliveries (the person is told in the app). */
  NOTIFY_PAUSE_AFTER_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
  /** A tracker counts as failing for its one notice after this many consecutive failed refreshes. */
  NOTIFY_FAILING_AFTER: z.coerce.number().int().min(1).max(100).default(3),
  /**
   * A field that read before and has read nothing for this many refreshes in a row puts its tracker into "needs
   * attention" (docs/field-health.md).
   */
  FIELD_MISSING_AFTER: z.coerce.number().int().min(1).max(100).default(3),
  /** Extra Host headers to answer (host or host:port), besides localhost, 127.0.0.1, [::1] and APP_URL's host. */
  ALLOWED_HOSTS: commaList,
  /**
   * Reverse proxies whose X-Forwarded-For is believed (server/auth/client-address.ts): IP addresses, CIDR ranges and
   * the words `loopback` and `private`. Empty: the client is the connection's peer and X-Forwarded-For is ignored.
   */
  TRUSTED_PROXIES: commaList.superRefine((entries, ctx) => {
    entries.forEach((entry, index) => {
      if (isTrustedProxyEntry(entry)) return;
      // The position, not the entry: validation errors never echo a value.
      ctx.addIssue({
        code: "custom",
        message: `entry ${index + 1} is not an IP address, a CIDR range (e.g. 10.0.0.0/8) or one of the words loopback, private`,
      });
    });
  }),
  /** Failed sign-ins for one email before each further attempt has to wait (server/auth/sign-in-throttle.ts). */
  SIGN_IN_THROTTLE_AFTER: z.coerce.number().int().min(1).max(1000).default(5),
  /** The longest of those waits, in seconds (they double from 15 s up to it). */
  SIGN_IN_THROTTLE_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
});

type TEnvFields = z.infer<typeof ZEnvObjectSchema>;
type TEnvProblem = { variable: keyof TEnvFields; message: string };

const AI_ROLE_VARIABLES = ["AI_MODEL_DRAFTER", "AI_MODEL_FILLER", "AI_MODEL_JUDGE", "AI_MODEL_ENHANCER"] as const;

/**
 * The AI settings that only make sense together (docs/design.md §1 "Model"). Checked here, at parse time, so that
 * getEnv() and `npm start` refuse the same configurations; server/ai/config.ts resolves what passes.
 */
export function aiSettingsProblem(
  env: Pick<
    TEnvFields,
    "AI_PROVIDER" | "OPENAI_API_KEY" | "OPENAI_BASE_URL" | "AI_MODEL" | (typeof AI_ROLE_VARIABLES)[number]
  >,
): TEnvProblem | undefined {
  const provider = env.AI_PROVIDER;
  if (provider === "rules") return undefined;
  const compatible = provider === "openai-compatible" || (provider === "auto" && env.OPENAI_BASE_URL !== undefined);
  if (compatible) {
    if (env.OPENAI_BASE_URL === undefined) {
      return {
        variable: "OPENAI_BASE_URL",
        message:
          "is required when AI_PROVIDER=openai-compatible: set it to your server's API URL (e.g. http://localhost:11434/v1)",
      };
    }
    const unnamed = AI_ROLE_VARIABLES.filter((name) => env[name] === undefined);
    if (env.AI_MODEL === undefined && unnamed.length > 0) {
      return {
        variable: "AI_MODEL",
        message: `is required with OPENAI_BASE_URL: set it to a model your server serves (or set ${unnamed.join(", ")})`,
      };
    }
    return undefined;
  }
  if (provider === "openai" && env.OPENAI_API_KEY === undefined) {
    return {
      variable: "OPENAI_API_KEY",
      message: "is required when AI_PROVIDER=openai: set it, or use AI_PROVIDER=rules to run without a model",
    };
  }
  return undefined;
}

/** The host marker that makes the embedded database unusable, if any (docs/design.md §1 "Database"). */
export function serverlessHost(env: Pick<TEnvFields, "VERCEL" | "AWS_LAMBDA_FUNCTION_NAME">): string | undefined {
  if (env.VERCEL !== undefined) return "VERCEL";
  if (env.AWS_LAMBDA_FUNCTION_NAME !== undefined) return "AWS_LAMBDA_FUNCTION_NAME";
  return undefined;
}

/** TRUSTED_PROXIES as addresses and CIDR ranges, its words spelled out. */
export function trustedProxyRanges(env: Pick<TEnvFields, "TRUSTED_PROXIES">): string[] {
  return env.TRUSTED_PROXIES.flatMap((entry) => (isTrustedProxyWord(entry) ? TRUSTED_PROXY_WORDS[entry] : [entry]));
}

export const DEFAULT_SCHEDULER_POLL_MS = 15_000;

/** The scheduler's idle poll: SCHEDULER_POLL_MS, else its older name WORKER_POLL_MS, else 15 s. */
export function schedulerPollMs(env: Pick<TEnvFields, "SCHEDULER_POLL_MS" | "WORKER_POLL_MS">): number {
  return env.SCHEDULER_POLL_MS ?? env.WORKER_POLL_MS ?? DEFAULT_SCHEDULER_POLL_MS;
}

/**
 * Whether this server process runs its own scheduler, and why (shown on /system; docs/scheduling.md). On a serverless
 * host no process outlives its request, so `auto` leaves scheduling to the cron route there.
 */
export function schedulerMode(env: Pick<TEnvFields, "SCHEDULER" | "VERCEL" | "AWS_LAMBDA_FUNCTION_NAME">): {
  enabled: boolean;
  reason: string;
} {
  if (env.SCHEDULER === "off") return { enabled: false, reason: "turned off (SCHEDULER=off)" };
  if (env.SCHEDULER === "on") return { enabled: true, reason: "turned on (SCHEDULER=on)" };
  const host = serverlessHost(env);
  if (host) {
    return { enabled: false, reason: `off on a serverless host (${host} is set): the cron route schedules there` };
  }
  return { enabled: true, reason: "on by default (SCHEDULER=auto)" };
}

/** Settings that are valid one by one but not together. Runs once every field parsed. */
function crossFieldProblems(env: TEnvFields): TEnvProblem[] {
  const problems: TEnvProblem[] = [];
  const ai = aiSettingsProblem(env);
  if (ai) problems.push(ai);
  // The embedded database keeps a generated secret beside its data; a shared PostgreSQL serves several
  // instances, which must all sign cookies with the same configured secret.
  if (env.NODE_ENV === "production" && env.DATABASE_URL !== undefined && env.AUTH_SECRET === undefined) {
    problems.push({
      variable: "AUTH_SECRET",
      message: `is required in production with DATABASE_URL (at least ${AUTH_SECRET_MIN_LENGTH} characters, e.g. \`openssl rand -base64 32\`)`,
    });
  }
  if ((env.SMTP_URL !== undefined || env.SMTP_HOST !== undefined) && env.SMTP_FROM === undefined) {
    problems.push({
      variable: "SMTP_FROM",
      message: "is required with SMTP_URL or SMTP_HOST (e.g. Bellwether <bell@example.com>)",
    });
  }
  if (env.BROWSER_EXECUTABLE_PATH !== undefined && env.BROWSER_WS_ENDPOINT !== undefined) {
    problems.push({
      variable: "BROWSER_WS_ENDPOINT",
      message: "cannot be set together with BROWSER_EXECUTABLE_PATH: use a local browser or a remote one, not both",
    });
  }
  const host = serverlessHost(env);
  if (host && env.DATABASE_URL === undefined) {
    problems.push({
      variable: "DATABASE_URL",
      message:
        `is required on a serverless host (${host} is set): the embedded database needs one long-lived process ` +
        "and a disk that outlives it; set DATABASE_URL to a PostgreSQL database",
    });
  }
  return problems;
}

export const ZEnvSchema = ZEnvObjectSchema.superRefine((env, ctx) => {
  for (const problem of crossFieldProblems(env)) {
    ctx.addIssue({ code: "custom", path: [problem.variable], message: problem.message });
  }
});

export type TEnv = z.infer<typeof ZEnvSchema>;

export class EnvError extends Error {
  override name = "EnvError";
}

/** Parses an environment; throws an EnvError whose message is one line naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined>): TEnv {
  const result = ZEnvSchema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
  throw new EnvError(`Invalid configuration: ${problems.join("; ")}`);
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
