import { describe, expect, it, vi } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";

/**
 * Next bundles server code more than once, so one process can hold two copies of db-hot-statements.ts: the client is
 * created (and its driver attached) through one and used through another. The second copy must still find the driver,
 * or every hot statement of the started server runs unnamed (docs/benchmarks.md, "Named statements").
 */
describe("the hot driver is found from every copy of the module", () => {
  it("attached through one copy, a statement through a fresh copy goes to the driver, named", async () => {
    vi.resetModules();
    const first = await import("@/server/db-hot-statements");
    vi.resetModules();
    const second = await import("@/server/db-hot-statements");
    expect(second).not.toBe(first);

    const sent: { name: string; text: string }[] = [];
    const db = { $queryRaw: vi.fn(async () => [{ via: "queryRaw" }]) };
    first.attachHotDriver(db as never, {
      kind: "postgres",
      query: async <T>(name: string, text: string) => {
        sent.push({ name, text });
        return [{ via: "driver" }] as T[];
      },
    });
    const rows = await second.queryHot(db as never, Prisma.sql`SELECT ${1}::int AS one`);
    expect(rows).toEqual([{ via: "driver" }]);
    expect(db.$queryRaw).not.toHaveBeenCalled();
    expect(sent[0]?.name).toMatch(/^bw_hot_[0-9a-f]{24}$/);
    first.detachHotDriver(db);
  });
});
