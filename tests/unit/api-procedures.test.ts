import { TRPCError } from "@trpc/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createCaller } from "../../server/api/root";
import type { TSessionUser } from "../../server/api/session-user";
import { createCallerFactory, createTRPCRouter, publicProcedure, type TTrpcContext } from "../../server/api/trpc";
import type { TDb } from "../../server/db";
import { detachedDefer } from "../../server/defer";
import { resetEnvForTests } from "../../server/env";
import { AppError } from "../../server/errors";
import { createLogger } from "../../server/logger";

function makeContext(user: TSessionUser | null): TTrpcContext {
  return {
    db: {} as TDb, // system.status and user.me read configuration and ctx only
    user,
    log: createLogger({}, () => {}),
    requestId: "test",
    headers: new Headers(),
    defer: detachedDefer,
  };
}

const localUser: TSessionUser = { id: "u_local", name: "You", email: "you@example.com", role: "owner" };

const AI_VARS = ["AI_PROVIDER", "OPENAI_API_KEY", "OPENAI_BASE_URL", "AI_MODEL", "DATABASE_URL", "DATA_DIR"];

beforeEach(() => {
  for (const name of AI_VARS) vi.stubEnv(name, undefined);
  resetEnvForTests();
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvForTests();
});

describe("protectedProcedure", () => {
  it("rejects a caller without a user", async () => {
    const caller = createCaller(makeContext(null));
    await expect(caller.user.me()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("lets the signed-in user through and returns only public fields", async () => {
    const caller = createCaller(makeContext({ ...localUser, passwordHash: "x", sessionId: "s1" } as TSessionUser));
    await expect(caller.user.me()).resolves.toEqual({
      id: "u_local",
      name: "You",
      email: "you@example.com",
      role: "owner",
    });
  });

  it("keeps configuration (system.status) from callers without a session", async () => {
    await expect(createCaller(makeContext(null)).system.status()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("keeps owner-only procedures from members (FORBIDDEN) and signed-out callers (UNAUTHORIZED)", async () => {
    const member: TSessionUser = { ...localUser, role: "member" };
    await expect(createCaller(makeContext(member)).account.invites()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(createCaller(makeContext(null)).account.invites()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("system.status and system.details", () => {
  it("reports rules mode and the embedded database when nothing is configured", async () => {
    const status = await createCaller(makeContext(localUser)).system.status();
    expect(status.ai.mode).toBe("rules");
    expect(status.ai.label).toBe("AI off — built-in rules");
    expect(status.ai.models).toEqual({ drafter: null, filler: null, judge: null, enhancer: null });
    expect(status.version).toMatch(/^\d+\.\d+\.\d+/);
    // The shell's status (prefetched into every page) says nothing about where the data lives.
    expect(status).not.toHaveProperty("database");
    expect(status).not.toHaveProperty("dataDir");

    const details = await createCaller(makeContext(localUser)).system.details();
    expect(details.database).toEqual({ kind: "embedded", location: expect.stringContaining(".data") });
    expect(details.dataDir).toBe("./.data");
    expect(details.runtime.node).toBe(process.version);
    expect(details.hiddenFromMembers).toBe(false);
  });

  it("shows a member the configuration but not where the data lives", async () => {
    const member: TSessionUser = { ...localUser, id: "u_member", role: "member" };
    const details = await createCaller(makeContext(member)).system.details();
    expect(details.ai.mode).toBe("rules");
    expect(details.database).toEqual({ kind: "embedded", location: null });
    expect(details.dataDir).toBeNull();
    expect(details.hiddenFromMembers).toBe(true);
    expect(JSON.stringify(details)).not.toContain(".data");
  });

  it("never contains the API key or the database password", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-test-SECRETKEY123");
    vi.stubEnv("OPENAI_BASE_URL", "http://proxyuser:proxypass@127.0.0.1:11434/v1?token=tok-SECRET");
    vi.stubEnv("AI_MODEL", "llama3.1");
    vi.stubEnv("AI_PROVIDER", "openai-compatible");
    vi.stubEnv("DATABASE_URL", "postgresql://app:db-SECRET-pw@db.internal:5432/bellwether?sslpassword=ssl-SECRET");
    resetEnvForTests();

    const status = await createCaller(makeContext(localUser)).system.status();
    expect(status.ai.mode).toBe("openai-compatible");
    const details = await createCaller(makeContext(localUser)).system.details();
    expect(details.database.kind).toBe("postgres");
    expect(details.database.location).toContain("db.internal");
    expect(details.dataDir).toBeNull();

    const json = JSON.stringify([status, details]);
    for (const secret of ["SECRETKEY123", "proxypass", "tok-SECRET", "db-SECRET-pw", "ssl-SECRET"]) {
      expect(json).not.toContain(secret);
    }
  });
});

describe("AppError through a server-side caller", () => {
  it("arrives with its mapped tRPC code, not INTERNAL_SERVER_ERROR", async () => {
    const router = createTRPCRouter({
      missing: publicProcedure.query(() => {
        throw new AppError("NOT_FOUND", "No such tracker.");
      }),
    });
    const caller = createCallerFactory(router)(makeContext(null));
    const error = await caller.missing().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: "NOT_FOUND", message: "No such tracker." });
    expect((error as TRPCError).cause).toBeInstanceOf(AppError);
  });
});
