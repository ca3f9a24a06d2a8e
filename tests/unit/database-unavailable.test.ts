import net from "node:net";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_UNAVAILABLE_MESSAGE } from "@/contracts/database-unavailable";
import { formatTrpcError, trpcResponseMeta } from "@/server/api/error-formatter";
import { createTRPCRouter, publicProcedure, type TTrpcContext } from "@/server/api/trpc";
import { createPostgresDb, type TDb } from "@/server/db";
import { findConnectionProblem } from "@/server/db-connection-error";
import { detachedDefer } from "@/server/defer";
import { AppError, databaseUnavailableError, toAppError, toHttpError } from "@/server/errors";
import { logger } from "@/server/logger";

/**
 * A database that cannot be reached is UNAVAILABLE (503 + Retry-After) on every surface, and nothing else is.
 * The errors are real: Prisma through the pg adapter against a closed port, a server that hangs up, and a fake
 * PostgreSQL that refuses every connection with an ErrorResponse (no free connections, starting up).
 */

type TFake = { port: number; close: () => Promise<void> };

/** Answers every startup message with a FATAL ErrorResponse (`sqlstate`), or hangs up when `sqlstate` is null. */
async function fakePostgres(sqlstate: string | null, message = "refused"): Promise<TFake> {
  const server = net.createServer((socket) => {
    socket.once("data", () => {
      if (sqlstate === null) {
        socket.destroy();
        return;
      }
      const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlstate}\0M${message}\0\0`);
      const head = Buffer.alloc(5);
      head.write("E", 0);
      head.writeInt32BE(fields.length + 4, 1);
      socket.end(Buffer.concat([head, fields]));
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function closedPort(): Promise<number> {
  const fake = await fakePostgres(null);
  await fake.close();
  return fake.port;
}

/** What a Prisma query throws against `port` (a model query and a raw one take different paths). */
async function prismaError(port: number, raw = false): Promise<unknown> {
  const { db, close } = await createPostgresDb(`postgresql://postgres:hunter2@127.0.0.1:${port}/bw`);
  try {
    await (raw ? db.$queryRawUnsafe("SELECT 1") : db.user.count());
    throw new Error("the query should have failed");
  } catch (error) {
    return error;
  } finally {
    await close().catch(() => {});
  }
}

const fakes: TFake[] = [];
afterAll(async () => {
  for (const fake of fakes) await fake.close();
});

describe("which errors mean the database cannot be reached", () => {
  let refused: unknown;
  let refusedRaw: unknown;
  let hungUp: unknown;
  let full: unknown;
  let starting: unknown;
  let badPassword: unknown;
  beforeAll(async () => {
    const port = await closedPort();
    const [hangUp, tooMany, startingUp, auth] = await Promise.all([
      fakePostgres(null),
      fakePostgres("53300", "sorry, too many clients already"),
      fakePostgres("57P03", "the database system is starting up"),
      fakePostgres("28P01", 'password authentication failed for user "postgres"'),
    ]);
    fakes.push(hangUp, tooMany, startingUp, auth);
    [refused, refusedRaw, hungUp, full, starting, badPassword] = await Promise.all([
      prismaError(port),
      prismaError(port, true),
      prismaError(hangUp.port),
      prismaError(tooMany.port),
      prismaError(startingUp.port),
      prismaError(auth.port),
    ]);
  });

  it("recognises Prisma's and node-postgres' connection failures, and says waiting helps", () => {
    expect(findConnectionProblem(refused)).toMatchObject({ transient: true });
    expect(findConnectionProblem(refusedRaw)).toMatchObject({ transient: true });
    expect(findConnectionProblem(hungUp)).toMatchObject({ transient: true });
    expect(findConnectionProblem(full)).toEqual({ reason: "the server has no free connections left", transient: true });
    expect(findConnectionProblem(starting)).toEqual({ reason: "the server is still starting up", transient: true });
    // A live query whose connection breaks (node-postgres' own words, no code).
    expect(findConnectionProblem(new Error("Connection terminated unexpectedly"))).toMatchObject({ transient: true });
    // Wrapped by a library on the way (better-auth: "Failed to get session", the Prisma error as its cause).
    expect(findConnectionProblem(new Error("Failed to get session", { cause: refused }))).toMatchObject({
      transient: true,
    });
  });

  it("maps each to UNAVAILABLE with Retry-After and a message that names no host, user or password", () => {
    for (const error of [refused, refusedRaw, hungUp, full, starting]) {
      const mapped = toHttpError(error);
      expect(mapped.status).toBe(503);
      expect(mapped.headers).toEqual({ "retry-after": "5" });
      expect(mapped.body.error).toEqual({
        code: "UNAVAILABLE",
        message: DATABASE_UNAVAILABLE_MESSAGE,
        details: { dependency: "database", retryAfterSeconds: 5 },
      });
      expect(JSON.stringify(mapped.body)).not.toMatch(/127\.0\.0\.1|hunter2|postgres/);
    }
  });

  it("leaves everything else alone: a wrong password, another service's socket, an AppError, a bug", () => {
    expect(findConnectionProblem(badPassword)).toMatchObject({ transient: false });
    expect(toHttpError(badPassword).status).toBe(500); // waiting will not fix it: an internal error, logged
    // A bare socket error may be SMTP or a fetched page, not the database.
    const smtp = Object.assign(new Error("connect ECONNREFUSED 10.0.0.9:587"), {
      code: "ECONNREFUSED",
      syscall: "connect",
      errno: -111,
    });
    expect(databaseUnavailableError(smtp)).toBeUndefined();
    expect(databaseUnavailableError(new TypeError("fetch failed", { cause: smtp }))).toBeUndefined();
    expect(databaseUnavailableError(new Error("request timeout"))).toBeUndefined();
    const notFound = new AppError("NOT_FOUND", "No such tracker.");
    expect(toAppError(notFound)).toBe(notFound);
    expect(toAppError(new Error("boom")).code).toBe("INTERNAL");
  });

  it("tRPC: a procedure and the context that cannot reach the database answer 503 with Retry-After", async () => {
    const router = createTRPCRouter({
      read: publicProcedure.query(async () => {
        throw refused;
      }),
      fine: publicProcedure.query(() => "ok"),
    });
    const context = (): TTrpcContext => ({
      db: {} as TDb,
      user: null,
      log: logger,
      requestId: "req-1",
      headers: new Headers(),
      defer: detachedDefer,
    });
    const call = (createContext: () => Promise<TTrpcContext>) =>
      fetchRequestHandler({
        endpoint: "/api/trpc",
        req: new Request("http://localhost/api/trpc/read"),
        router,
        createContext,
        responseMeta: trpcResponseMeta,
      });
    const inProcedure = await call(async () => context());
    const inContext = await call(async () => {
      // The session lookup is the context's database read; better-auth wraps what Prisma threw.
      throw new Error("Failed to get session", { cause: hungUp });
    });
    for (const res of [inProcedure, inContext]) {
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      const body = (await res.json()) as { error: { json: { message: string; data: Record<string, unknown> } } };
      expect(body.error.json.message).toBe(DATABASE_UNAVAILABLE_MESSAGE);
      expect(body.error.json.data).toMatchObject({
        code: "SERVICE_UNAVAILABLE",
        appCode: "UNAVAILABLE",
        httpStatus: 503,
        details: { dependency: "database", retryAfterSeconds: 5 },
      });
    }
    // Server callers (pages) see SERVICE_UNAVAILABLE too, with the digest the error boundaries read.
    const caller = router.createCaller(context());
    await expect(caller.read()).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      digest: "BELLWETHER_DATABASE_UNAVAILABLE",
    });
    // A success or an ordinary error sends no Retry-After.
    expect(trpcResponseMeta({ errors: [] })).toEqual({});
  });

  it("formatTrpcError alone maps a wrapped connection failure (errors raised outside any procedure)", async () => {
    const { TRPCError } = await import("@trpc/server");
    const error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: full as Error });
    const shape = { message: "x", code: -32603 as const, data: { code: error.code, httpStatus: 500 } };
    expect(formatTrpcError({ error, shape, path: undefined, ctx: undefined }).data).toMatchObject({
      appCode: "UNAVAILABLE",
      httpStatus: 503,
    });
  });
});
