import { getEnv } from "./env";
import { describeError } from "./errors";

/** JSON-lines logger with child bindings (request id, tracker id…). Secret-looking keys are redacted. */

type TLevel = "debug" | "info" | "warn" | "error";
const LEVELS: Record<TLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEY = /(secret|token|password|api[_-]?key|authorization|cookie)/i;

export type TLogger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): TLogger;
};

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return describeError(value); // stack and cause chain, for tracing
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1);
  return out;
}

export function createLogger(
  bindings: Record<string, unknown> = {},
  sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): TLogger {
  const threshold = LEVELS[getEnv().LOG_LEVEL];
  const write = (level: TLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < threshold) return;
    sink(
      JSON.stringify({ t: new Date().toISOString(), level, msg, ...(redact({ ...bindings, ...fields }) as object) }),
    );
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    child: (more) => createLogger({ ...bindings, ...more }, sink),
  };
}

export const logger = createLogger({ app: "bellwether" });
