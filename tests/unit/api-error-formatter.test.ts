import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { formatTrpcError } from "../../server/api/error-formatter";
import { createTRPCRouter, publicProcedure, type TTrpcContext } from "../../server/api/trpc";
import type { TDb } from "../../server/db";
import { detachedDefer } from "../../server/defer";
import { resetEnvForTests } from "../../server/env";
import { AppError } from "../../server/errors";
import { createLogger } from "../../server/logger";

const SECRET = "postgres://admin:hunter2@10.0.0.5/prod";

const testRouter = createTRPCRouter({
  notFound: publicProcedure.query(() => {
    throw new AppError("NOT_FOUND", "That tracker does not exist.", { details: { trackerId: "t1" } });
  }),
  notConfigured: publicProcedure.query(() => {
    throw new AppError("NOT_CONFIGURED", "Set GOOGLE_MAPS_API_KEY to use Maps.");
  }),
  upstream: publicProcedure.query(() => {
    throw new AppError("UPSTREAM_FAILED", "The page could not be fetched.");
  }),
  crash: publicProcedure.query(() => {
    throw new Error(`connect ECONNREFUSED ${SECRET}`);
  }),
  typed: publicProcedure.input(z.object({ url: z.url(), limit: z.number().int().max(10) })).query(() => "ok"),
  latitude: publicProcedure
    .input(
      z.object({
        latitude: z
          .number()
          .min(-90, "Latitude must be between -90 and 90.")
          .max(90, "Latitude must be between -90 and 90."),
      }),
    )
    .mutation(() => "ok"),
  domainFields: publicProcedure.query(() => {
    throw new AppError("BAD_REQUEST", "That name is taken.", { fieldErrors: { name: "That name is taken." } });
  }),
  denied: publicProcedure.query(() => {
    throw new TRPCError({ code: "FORBIDDEN", message: "Not your tracker." });
  }),
});

let logLines: string[] = [];

function makeContext(): TTrpcContext {
  return {
    db: {} as TDb, // these procedures never touch it
    user: null,
    log: createLogger({ requestId: "req-123" }, (line) => logLines.push(line)),
    requestId: "req-123",
    headers: new Headers(),
    defer: detachedDefer,
  };
}

async function call(path: string, input?: unknown) {
  const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: new Request(`http://localhost/api/trpc/${path}${query}`),
    router: testRouter,
    createContext: makeContext,
  });
  const text = await res.text();
  const body = JSON.parse(text) as {
    error: { json: { message: string; code: number; data: Record<string, unknown> } };
  };
  return { status: res.status, text, error: body.error.json };
}

beforeEach(() => {
  logLines = [];
  vi.stubEnv("LOG_LEVEL", "debug");
  resetEnvForTests();
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvForTests();
});

describe("error formatter over HTTP", () => {
  it("maps an AppError to its tRPC code, HTTP status and user-facing message", async () => {
    const { status, error } = await call("notFound");
    expect(status).toBe(404);
    expect(error.message).toBe("That tracker does not exist.");
    expect(error.data).toMatchObject({
      code: "NOT_FOUND",
      appCode: "NOT_FOUND",
      httpStatus: 404,
      path: "notFound",
      requestId: "req-123",
      details: { trackerId: "t1" },
    });
    expect(error.data.stack).toBeUndefined();
  });

  it("uses the table for codes tRPC has no exact key for", async () => {
    const notConfigured = await call("notConfigured");
    expect(notConfigured.status).toBe(412);
    expect(notConfigured.error.data).toMatchObject({ code: "PRECONDITION_FAILED", appCode: "NOT_CONFIGURED" });

    const upstream = await call("upstream");
    expect(upstream.status).toBe(502);
    expect(upstream.error.data).toMatchObject({ code: "BAD_GATEWAY", appCode: "UPSTREAM_FAILED", httpStatus: 502 });
  });

  it("hides an unknown error behind a generic message and logs it with the request id", async () => {
    const { status, text, error } = await call("crash");
    expect(status).toBe(500);
    expect(error.message).toMatch(/something went wrong/i);
    expect(error.data).toMatchObject({ code: "INTERNAL_SERVER_ERROR", appCode: "INTERNAL", requestId: "req-123" });
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("ECONNREFUSED");
    expect(text).not.toContain("at ");

    const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: "error", requestId: "req-123", path: "crash" });
    expect(JSON.stringify(logged[0])).toContain("ECONNREFUSED");
  });

  it("reports zod input errors as BAD_REQUEST with field issues", async () => {
    const { status, error } = await call("typed", { url: "not a url", limit: 99 });
    expect(status).toBe(400);
    expect(error.data.code).toBe("BAD_REQUEST");
    const issues = error.data.issues as { path: string; message: string }[];
    expect(issues.map((i) => i.path).sort()).toEqual(["limit", "url"]);
    expect(Object.keys(error.data.fieldErrors as object).sort()).toEqual(["limit", "url"]);
    // The message names a field, not just "The request is invalid."
    expect(error.message).toMatch(/^(url|limit): .+ \(and 1 more field to fix\)$/);
  });

  it("names the field and carries fieldErrors for one bad value (latitude 200)", async () => {
    const res = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: new Request("http://localhost/api/trpc/latitude", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ json: { latitude: 200 } }),
      }),
      router: testRouter,
      createContext: makeContext,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { json: { message: string; data: Record<string, unknown> } } };
    expect(body.error.json.message).toBe("Latitude must be between -90 and 90.");
    expect(body.error.json.data.fieldErrors).toEqual({ latitude: "Latitude must be between -90 and 90." });
  });

  it("passes an AppError's fieldErrors through", async () => {
    const { status, error } = await call("domainFields");
    expect(status).toBe(400);
    expect(error.data.fieldErrors).toEqual({ name: "That name is taken." });
  });

  it("keeps deliberate tRPC client errors as they are", async () => {
    const { status, error } = await call("denied");
    expect(status).toBe(403);
    expect(error.message).toBe("Not your tracker.");
    expect(error.data).toMatchObject({ code: "FORBIDDEN", appCode: "FORBIDDEN" });
  });

  it("answers an unknown procedure with NOT_FOUND", async () => {
    const { status, error } = await call("nope");
    expect(status).toBe(404);
    expect(error.data.code).toBe("NOT_FOUND");
  });
});

describe("formatTrpcError", () => {
  const shape = (error: TRPCError) => ({
    message: error.message,
    code: -32603 as const,
    data: { code: error.code, httpStatus: 500, stack: error.stack },
  });

  it("never includes a stack, even when tRPC's default shape has one", () => {
    const error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new Error("boom /srv/app/secret.ts:12") });
    const out = formatTrpcError({ error, shape: shape(error), path: "x", ctx: undefined });
    expect(JSON.stringify(out)).not.toContain("secret.ts");
    expect(out.data).not.toHaveProperty("stack");
  });

  it("does not expose a zod error raised inside a procedure (not an input error)", () => {
    const zodError = z.object({ a: z.string() }).safeParse({ a: 1 }).error;
    const error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: zodError });
    const out = formatTrpcError({ error, shape: shape(error), path: "x", ctx: undefined });
    expect(out.data.code).toBe("INTERNAL_SERVER_ERROR");
    expect(out.data.issues).toBeUndefined();
  });

  it("treats an AppError INTERNAL as internal: generic code and its safe message", () => {
    const cause = new AppError("INTERNAL", "The feed could not be assembled.");
    const error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause });
    const out = formatTrpcError({ error, shape: shape(error), path: "x", ctx: undefined });
    expect(out).toMatchObject({ message: "The feed could not be assembled.", data: { httpStatus: 500 } });
  });
});
