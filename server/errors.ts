import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE_DIGEST,
  DATABASE_UNAVAILABLE_MESSAGE,
} from "../contracts/database-unavailable";
import { findConnectionProblem } from "./db-connection-error";

/**
 * One error type for the whole domain. Routers translate `code` to tRPC/HTTP via the table below;
 * the message is written for the user and is safe to show. Anything else that escapes is reported
 * as an internal error without its message.
 */
export const APP_ERROR_CODES = {
  BAD_REQUEST: { trpc: "BAD_REQUEST", http: 400 },
  UNAUTHORIZED: { trpc: "UNAUTHORIZED", http: 401 },
  FORBIDDEN: { trpc: "FORBIDDEN", http: 403 },
  NOT_FOUND: { trpc: "NOT_FOUND", http: 404 },
  METHOD_NOT_ALLOWED: { trpc: "METHOD_NOT_SUPPORTED", http: 405 },
  CONFLICT: { trpc: "CONFLICT", http: 409 },
  PRECONDITION_FAILED: { trpc: "PRECONDITION_FAILED", http: 412 },
  PAYLOAD_TOO_LARGE: { trpc: "PAYLOAD_TOO_LARGE", http: 413 },
  UNPROCESSABLE: { trpc: "UNPROCESSABLE_CONTENT", http: 422 },
  /** A rate limit (details.retryAfterSeconds → the Retry-After header). */
  TOO_MANY_REQUESTS: { trpc: "TOO_MANY_REQUESTS", http: 429 },
  /** The person's monthly model-token budget is spent (AI_MONTHLY_TOKEN_BUDGET); no model call was made. */
  BUDGET_EXCEEDED: { trpc: "TOO_MANY_REQUESTS", http: 429 },
  UPSTREAM_FAILED: { trpc: "BAD_GATEWAY", http: 502 },
  UPSTREAM_TIMEOUT: { trpc: "GATEWAY_TIMEOUT", http: 504 },
  NOT_CONFIGURED: { trpc: "PRECONDITION_FAILED", http: 412 },
  /**
   * A feature this deployment has switched off (e.g. the cron route without CRON_SECRET), or a dependency that
   * cannot be reached right now (the database: details.retryAfterSeconds → the Retry-After header).
   */
  UNAVAILABLE: { trpc: "SERVICE_UNAVAILABLE", http: 503 },
  INTERNAL: { trpc: "INTERNAL_SERVER_ERROR", http: 500 },
} as const;

export type TAppErrorCode = keyof typeof APP_ERROR_CODES;

/**
 * What a form shows next to each field: the input path ("latitude", "fields.0.name") → the first message for it.
 * Every error shape carries it under the same name (tRPC `data.fieldErrors`, REST `error.fieldErrors`), so one
 * client helper serves every form.
 */
export type TFieldErrors = Record<string, string>;

/** A zod-style issue list → field errors (first message per path; issues about the whole input go under ""). */
export function toFieldErrors(issues: readonly { path: readonly PropertyKey[]; message: string }[]): TFieldErrors {
  const out: TFieldErrors = {};
  for (const issue of issues) {
    const path = issue.path.map(String).join(".");
    out[path] ??= issue.message;
  }
  return out;
}

/**
 * One line for invalid input that names the field: "latitude: Latitude must be between -90 and 90." (the path is
 * left out when the message already names it), plus how many other fields are wrong.
 */
export function describeFieldErrors(fieldErrors: TFieldErrors): string {
  const entries = Object.entries(fieldErrors);
  const [first] = entries;
  if (!first) return "The request is invalid.";
  const [path, message] = first;
  const last = path.split(".").at(-1) ?? "";
  // "Latitude must be …" or 'Expected "to" …' already say which field; "Invalid URL" does not.
  const named =
    path === "" || message.includes(`"${path}"`) || message.toLowerCase().startsWith(`${last.toLowerCase()} `);
  const line = named ? message : `${path}: ${message}`;
  const more = entries.length - 1;
  return more > 0 ? `${line} (and ${more} more field${more === 1 ? "" : "s"} to fix)` : line;
}

export class AppError extends Error {
  override name = "AppError";
  readonly code: TAppErrorCode;
  /** Machine-readable extras that are safe to show (never secrets, never stack traces). */
  readonly details?: Record<string, unknown>;
  /** Per-field messages for a form (see TFieldErrors); set by invalid input, domain checks may set them too. */
  readonly fieldErrors?: TFieldErrors;

  constructor(
    code: TAppErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown>; fieldErrors?: TFieldErrors },
  ) {
    super(message, { cause: options?.cause });
    this.code = code;
    this.details = options?.details;
    this.fieldErrors = options?.fieldErrors;
  }

  get httpStatus(): number {
    return APP_ERROR_CODES[this.code].http;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * UNAVAILABLE (503 + Retry-After) when `error` is the database connection failing in a way waiting can fix
 * (refused, reset, timed out, no free connections, starting up — server/db-connection-error.ts), else undefined.
 * The reason stays out of the message (it is for the operator: logged with the cause, shown by /api/health);
 * `digest` is what Next keeps on a page's error, so the error boundaries can tell this failure apart.
 */
export function databaseUnavailableError(error: unknown): (AppError & { digest: string }) | undefined {
  if (isAppError(error)) return undefined;
  const problem = findConnectionProblem(error);
  if (!problem?.transient) return undefined;
  return Object.assign(
    new AppError("UNAVAILABLE", DATABASE_UNAVAILABLE_MESSAGE, {
      cause: error,
      details: { dependency: "database", retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
    }),
    { digest: DATABASE_UNAVAILABLE_DIGEST },
  );
}

/** Any error as an AppError: an AppError as it is, a database that cannot be reached as UNAVAILABLE, else INTERNAL. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  return (
    databaseUnavailableError(error) ??
    new AppError("INTERNAL", "Something went wrong on our side. It has been logged; please try again.", {
      cause: error,
    })
  );
}

/** A BAD_REQUEST for input that failed its schema: the message names the field, fieldErrors has them all. */
export function invalidInputError(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  options?: { message?: string; cause?: unknown },
): AppError {
  const fieldErrors = toFieldErrors(issues);
  const details = { issues: issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })) };
  return new AppError("BAD_REQUEST", options?.message ?? describeFieldErrors(fieldErrors), {
    cause: options?.cause,
    details,
    fieldErrors,
  });
}

export type TPublicError = {
  code: TAppErrorCode;
  message: string;
  details?: Record<string, unknown>;
  fieldErrors?: TFieldErrors;
};

/**
 * The user-facing shape of any error: AppErrors keep their message, a database that cannot be reached is
 * UNAVAILABLE (toAppError), everything else is hidden.
 */
export function toPublicError(error: unknown): TPublicError {
  const app = toAppError(error);
  if (app.code === "INTERNAL" && app !== error) return { code: "INTERNAL", message: app.message };
  return {
    code: app.code,
    message: app.message,
    details: app.details,
    ...(app.fieldErrors ? { fieldErrors: app.fieldErrors } : {}),
  };
}

/** The JSON body every HTTP route answers an error with (REST, cron, streaming routes; tRPC has its own envelope). */
export type TErrorBody = { error: TPublicError };

/**
 * The one error→HTTP mapping: the status from APP_ERROR_CODES, the public body, and the headers the status
 * calls for (`Retry-After` from details.retryAfterSeconds). tRPC's error formatter uses the same table, so a
 * code means the same status on every surface.
 */
export function toHttpError(error: unknown): { status: number; body: TErrorBody; headers: Record<string, string> } {
  const pub = toPublicError(error);
  const retryAfter = pub.details?.retryAfterSeconds;
  return {
    status: APP_ERROR_CODES[pub.code].http,
    body: {
      error: {
        code: pub.code,
        message: pub.message,
        ...(pub.details ? { details: pub.details } : {}),
        ...(pub.fieldErrors ? { fieldErrors: pub.fieldErrors } : {}),
      },
    },
    headers:
      typeof retryAfter === "number" && Number.isFinite(retryAfter) && retryAfter > 0
        ? { "retry-after": String(Math.ceil(retryAfter)) }
        : {},
  };
}

/**
 * An error as it goes into a log line: name, message, code, stack and the cause chain (bounded), so an
 * unexpected failure can be traced. Never for a response body (use toPublicError there).
 */
export function describeError(error: unknown, depth = 0): Record<string, unknown> | string {
  if (!(error instanceof Error)) return typeof error === "string" ? error : safeString(error);
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" || typeof code === "number") out.code = code;
  if (error.stack) out.stack = error.stack;
  if (error.cause !== undefined && depth < 4) out.cause = describeError(error.cause, depth + 1);
  if (error instanceof AggregateError && depth < 4)
    out.errors = error.errors.slice(0, 5).map((e) => describeError(e, depth + 1));
  return out;
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
