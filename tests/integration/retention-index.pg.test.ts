import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Prisma } from "@/server/generated/prisma/client";
import { pruneBatchSql } from "@/server/retention";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { createActiveTracker } from "../helpers/trackers";

/**
 * Retention's batch reads only runs it may delete (docs/scale.md, "Table growth, retention and partitioning"): the
 * runs it keeps for good (a change, a failure, a capture) pile up before the cutoff, and a batch that had to step over
 * them would grow with the whole history. Checked on PostgreSQL's own plan of the real statement.
 */

const DAY = 86_400_000;
const NOW = new Date("2026-03-10T12:00:00Z");
const CUTOFF = new Date(NOW.getTime() - 14 * DAY);
const KEPT = 3_000;
const PRUNABLE = 20;

type TPlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: TPlanNode[];
};

/** The index a scan reads: its own, or its bitmap's (a Bitmap Heap Scan reads through a Bitmap Index Scan). */
const indexOf = (scan: TPlanNode | undefined): string | undefined =>
  scan?.["Index Name"] ?? scan?.Plans?.find((child) => child["Node Type"] === "Bitmap Index Scan")?.["Index Name"];

function scansOf(node: TPlanNode, relation: string): TPlanNode[] {
  const own = node["Relation Name"] === relation && node["Node Type"].includes("Scan") ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => scansOf(child, relation))];
}

describe.skipIf(!hasPostgres)("retention's batch on PostgreSQL", () => {
  let pg: TPostgresTestDb;

  beforeAll(async () => {
    pg = await createPostgresTestDb();
    const { tracker } = await createActiveTracker(pg.db, {
      capability: "web.scrape",
      capabilityInput: { url: "https://shop.example/plan" },
      definition: {
        fields: [{ name: "price", type: "number", description: "Price" }],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.05 } },
      },
    });
    const old = (i: number) => new Date(CUTOFF.getTime() - DAY - i * 60_000);
    const runs: Prisma.RefreshRunCreateManyInput[] = [];
    // Kept for good, all older than the cutoff: failures and recorded changes.
    for (let i = 0; i < KEPT; i++) {
      runs.push({
        id: randomUUID(),
        trackerId: tracker.id,
        trigger: "cron",
        status: i % 2 === 0 ? "failed" : "completed",
        outcome: i % 2 === 0 ? null : "material",
        createdAt: old(i),
      });
    }
    // What the batch may delete: old unchanged runs and skipped ones; and recent unchanged runs it must leave.
    for (let i = 0; i < PRUNABLE; i++) {
      const skipped = i % 4 === 0;
      runs.push({
        id: randomUUID(),
        trackerId: tracker.id,
        trigger: "manual",
        status: skipped ? "skipped" : "completed",
        outcome: skipped ? "in_flight" : "unchanged",
        createdAt: old(KEPT + i),
      });
    }
    for (let i = 0; i < 500; i++) {
      runs.push({
        id: randomUUID(),
        trackerId: tracker.id,
        trigger: "manual",
        status: "completed",
        outcome: "unchanged",
        createdAt: new Date(NOW.getTime() - i * 60_000),
      });
    }
    await pg.db.refreshRun.createMany({ data: runs });
    await pg.db.$executeRawUnsafe(`ANALYZE "RefreshRun"`);
  });
  afterAll(async () => {
    await pg?.drop();
  });

  it("finds its candidates through the index of prunable runs, stepping over none of the runs kept for good", async () => {
    const sql = pruneBatchSql(CUTOFF, 2_000);
    // EXPLAIN ANALYZE runs the DELETE: inside a transaction that is rolled back.
    const rollback = new Error("rollback");
    let plan: TPlanNode | undefined;
    await pg.db
      .$transaction(async (tx) => {
        const rows = await tx.$queryRawUnsafe<{ "QUERY PLAN": { Plan: TPlanNode }[] }[]>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${sql.text}`,
          ...sql.values,
        );
        plan = rows[0]?.["QUERY PLAN"][0]?.Plan;
        throw rollback;
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error;
      });
    if (!plan) throw new Error("no plan");
    // The first scan of RefreshRun is the batch's search for candidates (the DELETE's own comes after it).
    const [candidates] = scansOf(plan, "RefreshRun");
    expect(indexOf(candidates)).toBe("RefreshRun_prunable_createdAt_idx");
    expect(candidates?.["Actual Rows"]).toBe(PRUNABLE);
    expect(candidates?.["Rows Removed by Filter"] ?? 0).toBe(0);
    // Rolled back: every run is still there.
    expect(await pg.db.refreshRun.count()).toBe(KEPT + PRUNABLE + 500);
  });
});
