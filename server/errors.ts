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
  CONFLICT: { trpc: "CONFLICT", http: 409 },
  PRECONDITION_FAILED: { trpc: "PRECONDITION_FAILED", http: 412 },
  PAYLOAD_TOO_LARGE: { trpc: "PAYLOAD_TOO_LARGE", http: 413 },
  UNPROCESSABLE: { trpc: "UNPROCESSABLE_CONTENT", http: 422 },
  TOO_MANY_REQUESTS: { trpc: "TOO_MANY_REQUESTS", http: 429 },
  UPSTREAM_FAILED: { trpc: "BAD_GATEWAY", http: 502 },
  UPSTREAM_TIMEOUT: { trpc: "GATEWAY_TIMEOUT", http: 504 },
  NOT_CONFIGURED: { trpc: "PRECONDITION_FAILED", http: 412 },
  INTERNAL: { trpc: "INTERNAL_SERVER_ERROR", http: 500 },
} as const;

export type TAppErrorCode = keyof typeof APP_ERROR_CODES;

export class AppError extends Error {
  override name = "AppError";
  readonly code: TAppErrorCode;
  /** Machine-readable extras that are safe to show (never secrets, never stack traces). */
  readonly details?: Record<string, unknown>;

  constructor(code: TAppErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, { cause: options?.cause });
    this.code = code;
    this.details = options?.details;
  }

  get httpStatus(): number {
    return APP_ERROR_CODES[this.code].http;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** The user-facing shape of any error: AppErrors keep their message, everything else is hidden. */
export function toPublicError(error: unknown): {
  code: TAppErrorCode;
  message: string;
  details?: Record<string, unknown>;
} {
  if (isAppError(error)) return { code: error.code, message: error.message, details: error.details };
  return { code: "INTERNAL", message: "Something went wrong on our side. It has been logged; please try again." };
}
