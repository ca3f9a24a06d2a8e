/**
 * The one tRPC init file: context, transformer, error formatting and the procedure builders.
 * Routers import `createTRPCRouter` and the procedures from here, nothing else from @trpc/server/init.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { findUnstorableText } from "@/contracts/common";
import { getDb, type TDb } from "../db";
import type { TDefer } from "../defer";
import { APP_ERROR_CODES, databaseUnavailableError, isAppError } from "../errors";
import { logger, type TLogger } from "../logger";
import { formatTrpcError } from "./error-formatter";
import { createRequestDefer } from "./request-defer";
import { pickRequestId } from "./request-id";
import { resolveSessionUser, type TSessionUser } from "./session-user";

export type TTrpcContext = {
  db: TDb;
  /** null when nobody is signed in (no, forged, expired or revoked session cookie). */
  user: TSessionUser | null;
  log: TLogger;
  requestId: string;
  headers: Headers;
  /** Background work that outlives the response (Next `after()` in a request, tracked promise outside one). */
  defer: TDefer;
};

/** Builds the context for one request (HTTP handler and RSC both call this). */
export async function createTRPCContext(opts: { headers: Headers }): Promise<TTrpcContext> {
  const requestId = pickRequestId(opts.headers);
  const db = await getDb();
  const user = await resolveSessionUser(db, opts.headers);
  return {
    db,
    user,
    log: logger.child({ requestId }),
    requestId,
    headers: opts.headers,
    defer: createRequestDefer(),
  };
}

const t = initTRPC.context<TTrpcContext>().create({
  transformer: superjson,
  errorFormatter: formatTrpcError,
  // Stack traces never leave the server, whatever NODE_ENV says.
  isDev: false,
  sse: {
    // Keeps proxies from closing quiet streams; the client reconnects if pings stop.
    ping: { enabled: true, intervalMs: 10_000 },
    client: { reconnectAfterInactivityMs: 25_000 },
  },
});

/**
 * Gives AppErrors their mapped tRPC code as the error travels (so server callers — RSC, createCaller —
 * see NOT_FOUND rather than INTERNAL_SERVER_ERROR), and a database that cannot be reached its UNAVAILABLE
 * (SERVICE_UNAVAILABLE, with the digest a page's error boundary reads). The formatter does the same for the wire.
 */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === "INTERNAL_SERVER_ERROR") {
    const raw = result.error.cause;
    const unavailable = databaseUnavailableError(raw);
    const cause = isAppError(raw) ? raw : unavailable;
    if (!cause) return result;
    const error = new TRPCError({ code: APP_ERROR_CODES[cause.code].trpc, message: cause.message, cause });
    return { ...result, error: unavailable ? Object.assign(error, { digest: unavailable.digest }) : error };
  }
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const mergeRouters = t.mergeRouters;

/** Text PostgreSQL cannot store (NUL, lone surrogates) is a 400 naming the field, for every procedure's input. */
const storableInput = t.middleware(async ({ getRawInput, next }) => {
  const bad = findUnstorableText(await getRawInput());
  if (bad) {
    throw new TRPCError({
      code: "BAD_REQUEST",
      message: `${bad}: text must not contain NUL characters or lone surrogates.`,
    });
  }
  return next();
});

export const publicProcedure = t.procedure.use(appErrors).use(storableInput);

/** Requires a signed-in user; `ctx.user` is non-null inside. */
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue." });
  return next({ ctx: { user: ctx.user } });
});

/** Requires the owner of this install (invites, open sign-up). Anyone else: FORBIDDEN. */
export const ownerProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "owner") {
    throw new TRPCError({ code: "FORBIDDEN", message: "Only the owner of this Bellwether can do that." });
  }
  return next({ ctx: { user: ctx.user } });
});
