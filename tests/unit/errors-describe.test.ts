import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvForTests } from "@/server/env";
import { AppError, describeError, toHttpError } from "@/server/errors";
import { createLogger } from "@/server/logger";

describe("describeError (logs)", () => {
  it("keeps the stack and the cause chain", () => {
    const root = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const error = new Error("refresh failed", { cause: root });
    const described = describeError(error) as Record<string, unknown>;
    expect(described.message).toBe("refresh failed");
    expect(String(described.stack)).toContain("errors-describe.test.ts");
    expect(described.cause).toMatchObject({ message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" });
  });

  afterEach(() => {
    vi.unstubAllEnvs();
    resetEnvForTests();
  });

  it("is what the logger writes for an error field", () => {
    vi.stubEnv("LOG_LEVEL", "debug");
    resetEnvForTests();
    const lines: string[] = [];
    const log = createLogger({}, (line) => lines.push(line));
    log.error("boom", { error: new Error("outer", { cause: new Error("inner") }) });
    const entry = JSON.parse(lines[0] ?? "{}");
    expect(entry.error.cause.message).toBe("inner");
    expect(entry.error.stack).toContain("Error: outer");
  });
});

describe("toHttpError (one mapping for every HTTP route)", () => {
  it.each([
    ["NOT_FOUND", 404],
    ["BAD_REQUEST", 400],
    ["TOO_MANY_REQUESTS", 429],
    ["NOT_CONFIGURED", 412],
  ] as const)("%s → %i with the public body", (code, status) => {
    const mapped = toHttpError(new AppError(code, "msg", { details: { a: 1 } }));
    expect(mapped).toEqual({ status, body: { error: { code, message: "msg", details: { a: 1 } } }, headers: {} });
  });

  it("sends Retry-After (whole seconds, rounded up) when the details carry retryAfterSeconds", () => {
    const limited = toHttpError(
      new AppError("TOO_MANY_REQUESTS", "Too many refreshes — try again in 13 s.", {
        details: { retryAfterSeconds: 12.2 },
      }),
    );
    expect(limited.status).toBe(429);
    expect(limited.headers).toEqual({ "retry-after": "13" });
    expect(toHttpError(new AppError("BUDGET_EXCEEDED", "spent")).status).toBe(429);
    for (const bad of [0, -5, Number.NaN, "12"]) {
      expect(
        toHttpError(new AppError("TOO_MANY_REQUESTS", "x", { details: { retryAfterSeconds: bad } })).headers,
      ).toEqual({});
    }
  });

  it("hides anything that is not an AppError behind a 500", () => {
    const mapped = toHttpError(new Error("secret internals"));
    expect(mapped.status).toBe(500);
    expect(JSON.stringify(mapped.body)).not.toContain("secret internals");
  });
});
