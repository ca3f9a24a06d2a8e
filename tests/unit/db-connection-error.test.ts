import { describe, expect, it } from "vitest";
import { describeConnectionError } from "@/server/db-connection-error";

// Error shapes as `pg`, node's sockets and Prisma 7's driver adapter report them (captured from real
// failures against 127.0.0.1:1 and a local PostgreSQL; tests/integration/start-config*.test.ts run the real ones).
describe("describeConnectionError", () => {
  it("turns socket errors into advice, and says waiting may help", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(describeConnectionError(refused)).toEqual({
      reason: expect.stringMatching(/^connection refused \(check that PostgreSQL runs there/),
      transient: true,
    });
    const both = Object.assign(new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })]), {});
    expect(describeConnectionError(both).reason).toMatch(/^connection refused/);
  });

  it("says when waiting will not help (SQLSTATE from the server)", () => {
    const missing = Object.assign(new Error('database "nope" does not exist'), { code: "3D000" });
    expect(describeConnectionError(missing)).toEqual({
      reason: expect.stringMatching(/^the database does not exist/),
      transient: false,
    });
  });

  it("reads Prisma's driver-adapter errors instead of showing P2010", () => {
    const unreachable = Object.assign(new Error("Raw query failed. Code: `N/A`."), {
      code: "P2010",
      meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable", host: "127.0.0.1", port: 1 } } },
    });
    const described = describeConnectionError(unreachable);
    expect(described.reason).toMatch(/^no server answers there/);
    expect(described.reason).not.toMatch(/P2010|N\/A/);
    const denied = Object.assign(new Error("Raw query failed."), {
      code: "P2010",
      meta: { driverAdapterError: { cause: { kind: "DatabaseAccessDenied", originalCode: "28000" } } },
    });
    expect(describeConnectionError(denied).reason).toMatch(/does not accept this user/);
  });

  it("falls back to the first line of an unknown error, without a trailing full stop", () => {
    expect(describeConnectionError(new Error("something odd.\nstack"))).toEqual({
      reason: "something odd",
      transient: false,
    });
  });
});
