import type { TRPCDefaultErrorShape, TRPCError } from "@trpc/server";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";
import { findConnectionProblem } from "@/server/db-connection-error";
import {
  APP_ERROR_CODES,
  databaseUnavailableError,
  invalidInputError,
  isAppError,
  type TAppErrorCode,
  type TFieldErrors,
  toHttpError,
  toPublicError,
} from "@/server/errors";
import { logger as rootLogger, type TLogger } from "@/server/logger";

/**
 * Turns any error that leaves a procedure into the shape the client sees.
 * - AppError → its code from APP_ERROR_CODES (tRPC code + HTTP status) and its user-facing message.
 * - Input validation (zod) → BAD_REQUEST naming the field, with per-field issues and `fieldErrors` (what a form
 *   shows next to each field; AppErrors may carry them too).
 * - A database that cannot be reached (thrown anywhere, the context included) → UNAVAILABLE, 503 with
 *   details.retryAfterSeconds (trpcResponseMeta sends it as Retry-After); the reason is logged as a warning.
 * - tRPC's own client errors (unknown procedure, bad JSON…) → kept as they are.
 * - Anything else → a generic INTERNAL message; the real error is logged with the request id.
 * Stack traces are never sent, in any environment.
 */

export type TFieldIssue = { path: string; message: string };

export type TErrorData = {
  /** tRPC code key, e.g. NOT_FOUND. */
  code: TRPC_ERROR_CODE_KEY;
  /** The domain code, e.g. NOT_CONFIGURED; the one clients should branch on. */
  appCode: TAppErrorCode;
  httpStatus: number;
  path?: string;
  requestId?: string;
  details?: Record<string, unknown>;
  issues?: TFieldIssue[];
  /** Input path → the message to show next to that field (server/errors.ts TFieldErrors). */
  fieldErrors?: TFieldErrors;
};

export type TErrorShape = { message: string; code: TRPCDefaultErrorShape["code"]; data: TErrorData };

type TFormatterInput = {
  error: TRPCError;
  shape: TRPCDefaultErrorShape;
  path: string | undefined;
  ctx: { log?: TLogger; requestId?: string } | undefined;
};

/** tRPC codes that describe a bad request, which are safe to report as they are. */
const CLIENT_TRPC_CODES: ReadonlySet<TRPC_ERROR_CODE_KEY> = new Set([
  "PARSE_ERROR",
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "METHOD_NOT_SUPPORTED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "TOO_MANY_REQUESTS",
  "CLIENT_CLOSED_REQUEST",
]);

/** The reverse of APP_ERROR_CODES for tRPC-raised errors (first match wins). */
function appCodeForTrpcCode(code: TRPC_ERROR_CODE_KEY): TAppErrorCode {
  for (const [appCode, entry] of Object.entries(APP_ERROR_CODES)) {
    if (entry.trpc === code) return appCode as TAppErrorCode;
  }
  return code === "UNPROCESSABLE_CONTENT" ? "UNPROCESSABLE" : "BAD_REQUEST";
}

function build(
  trpcCode: TRPC_ERROR_CODE_KEY,
  httpStatus: number,
  message: string,
  extra: Omit<TErrorData, "code" | "httpStatus">,
): TErrorShape {
  return { message, code: TRPC_ERROR_CODES_BY_KEY[trpcCode], data: { code: trpcCode, httpStatus, ...extra } };
}

export function formatTrpcError({ error, shape, path, ctx }: TFormatterInput): TErrorShape {
  const cause = databaseUnavailableError(error.cause) ?? error.cause;
  const requestId = ctx?.requestId;
  const base = { path, requestId };

  if (isAppError(cause)) {
    const mapping = APP_ERROR_CODES[cause.code];
    if (cause.code === "INTERNAL") logInternal(ctx, path, cause);
    if (cause.details?.dependency === "database") {
      (ctx?.log ?? rootLogger).warn("request failed: the database cannot be reached", {
        path,
        reason: findConnectionProblem(cause.cause)?.reason,
      });
    }
    const pub = toPublicError(cause);
    return build(mapping.trpc, mapping.http, pub.message, {
      ...base,
      appCode: cause.code,
      details: pub.details,
      ...(pub.fieldErrors ? { fieldErrors: pub.fieldErrors } : {}),
    });
  }

  if (error.code === "BAD_REQUEST" && cause instanceof ZodError) {
    const invalid = invalidInputError(cause.issues);
    return build("BAD_REQUEST", 400, invalid.message, {
      ...base,
      appCode: "BAD_REQUEST",
      issues: invalid.details?.issues as TFieldIssue[],
      ...(invalid.fieldErrors ? { fieldErrors: invalid.fieldErrors } : {}),
    });
  }

  if (CLIENT_TRPC_CODES.has(error.code)) {
    // Raised by tRPC itself or deliberately by our middlewares: the message is ours, not an internal one.
    return build(error.code, shape.data.httpStatus, error.message, {
      ...base,
      appCode: appCodeForTrpcCode(error.code),
    });
  }

  logInternal(ctx, path, cause ?? error);
  const pub = toPublicError(cause ?? error);
  return build("INTERNAL_SERVER_ERROR", 500, pub.message, { ...base, appCode: "INTERNAL" });
}

function logInternal(ctx: TFormatterInput["ctx"], path: string | undefined, error: unknown): void {
  const log = ctx?.log ?? rootLogger;
  log.error("request failed", {
    path,
    error,
  });
}

/**
 * The headers of a tRPC answer that failed as a whole: `Retry-After` for a 503 (database unreachable) or 429, from
 * details.retryAfterSeconds as toHttpError sends it on every other route. A streamed batch has sent its status and
 * headers before its calls end; its errors carry the same details in their data.
 */
export function trpcResponseMeta({ errors }: { errors: readonly TRPCError[] }): { headers?: Record<string, string> } {
  let retryAfter = 0;
  for (const error of errors) {
    const { headers } = toHttpError(databaseUnavailableError(error.cause) ?? error.cause);
    retryAfter = Math.max(retryAfter, Number(headers["retry-after"] ?? 0));
  }
  return retryAfter > 0 ? { headers: { "retry-after": String(retryAfter) } } : {};
}
