import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { claimDueTrackers, type TLoadedTracker } from "@/server/intelligence/tracker-store";
import { countSql } from "../bench/sql-counter";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig, priceBody } from "../helpers/trackers";

/**
 * A claimed tracker waits in its claimer's queue until a lane is free (run-due-refreshes.ts). Before it runs,
 * the refresh checks how long it waited: under a third of the lease → it runs on the claim's lease as is (no
 * statement); longer → it renews the lease first (one UPDATE) and runs; the lease gone meanwhile (expired and
 * taken over) → it is answered "in flight" without a fetch, and the other holder's run is untouched.
 * Clocks are injected (`now`), nothing here depends on wall-clock time.
 */

const LEASE_MS = 9_000;
let t: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  await t?.close();
});

const options = (at: Date, extra: Partial<TRefreshOptions> = {}): TRefreshOptions => ({
  trigger: "cron",
  models: { filler: null, judge: null },
  capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
  leaseMs: LEASE_MS,
  now: () => at,
  ...extra,
});

/** One active tracker with its baseline, due at `due`; every other tracker not due. */
async function dueTracker(path: string, due: Date): Promise<string> {
  site.setPage(path, { body: priceBody("$10.00") });
  const { tracker } = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path) },
    definition: cssPriceDefinition(0.05),
  });
  expect((await refreshTracker(t.db, tracker.id, options(new Date()))).outcome).toBe("baseline");
  await t.db.tracker.updateMany({ data: { nextRunAt: null } });
  await t.db.tracker.update({ where: { id: tracker.id }, data: { nextRunAt: due } });
  site.setPage(path, { body: priceBody("$10.00"), delayMs: 150 }); // same document, new bytes
  return tracker.id;
}

async function claimOne(now: Date): Promise<TLoadedTracker> {
  const claimed = await claimDueTrackers(t.db, { limit: 5, now, leaseMs: LEASE_MS });
  expect(claimed).toHaveLength(1);
  return claimed[0] as TLoadedTracker;
}

/** Runs `work`, returning the SQL it sent and the tracker row as it was when the page was being fetched. */
async function observed<T>(trackerId: string, work: (onStep: TRefreshOptions["onStep"]) => Promise<T>) {
  const sent: string[] = [];
  let duringCrawl: Promise<{ leaseToken: string | null; leaseExpiresAt: Date | null }> | undefined;
  const counter = countSql(t.pglite, { onStatement: (sql) => sent.push(sql) });
  try {
    const value = await work((event) => {
      if (event.step === "crawl" && event.status === "running") {
        // Started now (a Prisma query runs when awaited); the page is served slowly, so this reads mid-run.
        duringCrawl = Promise.resolve(
          t.db.tracker.findUniqueOrThrow({
            where: { id: trackerId },
            select: { leaseToken: true, leaseExpiresAt: true },
          }),
        );
      }
    });
    const lease = await duringCrawl;
    // The probe above is not the refresh's own statement.
    return { value, sent: sent.filter((sql) => !/^SELECT .*"leaseExpiresAt"/s.test(sql.trim())), lease };
  } finally {
    counter.restore();
  }
}

const renewals = (sent: string[]) => sent.filter((sql) => /^UPDATE "Tracker" SET "leaseExpiresAt"/.test(sql.trim()));

describe("resuming a claimed tracker", () => {
  it("soon after the claim: runs on the claim's lease, one statement (its final write), no renewal", async () => {
    const claimedAt = new Date("2026-03-01T10:00:00Z");
    const trackerId = await dueTracker("/resume-soon", new Date(claimedAt.getTime() - 60_000));
    const claimed = await claimOne(claimedAt);
    const startAt = new Date(claimedAt.getTime() + LEASE_MS / 3 - 1);
    const run = await observed(trackerId, (onStep) =>
      refreshTracker(t.db, trackerId, { ...options(startAt), claimed, onStep }),
    );
    expect(run.value).toMatchObject({ status: "completed", outcome: "unchanged" });
    expect(renewals(run.sent)).toHaveLength(0);
    expect(run.sent).toHaveLength(1);
    // Still the claim's lease while the page was fetched.
    expect(run.lease?.leaseToken).toBe(claimed.leaseToken);
    expect(run.lease?.leaseExpiresAt?.getTime()).toBe(claimedAt.getTime() + LEASE_MS);
  });

  it("after waiting more than a third of the lease: renews it first (to a full lease from now), then runs", async () => {
    const claimedAt = new Date("2026-03-02T10:00:00Z");
    const trackerId = await dueTracker("/resume-late", new Date(claimedAt.getTime() - 60_000));
    const claimed = await claimOne(claimedAt);
    const startAt = new Date(claimedAt.getTime() + LEASE_MS / 3 + 1);
    const run = await observed(trackerId, (onStep) =>
      refreshTracker(t.db, trackerId, { ...options(startAt), claimed, onStep }),
    );
    expect(run.value).toMatchObject({ status: "completed", outcome: "unchanged" });
    expect(renewals(run.sent)).toHaveLength(1);
    expect(run.sent).toHaveLength(2); // the renewal + the final write
    expect(run.lease?.leaseToken).toBe(claimed.leaseToken);
    expect(run.lease?.leaseExpiresAt?.getTime()).toBe(startAt.getTime() + LEASE_MS);
    const after = await t.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
    expect(after.leaseToken).toBeNull(); // released by the final write
    expect(after.lastRunAt?.getTime()).toBe(startAt.getTime());
  });

  it("after the lease expired and someone else took it: answered in flight, no fetch, their lease untouched", async () => {
    const claimedAt = new Date("2026-03-03T10:00:00Z");
    const trackerId = await dueTracker("/resume-lost", new Date(claimedAt.getTime() - 60_000));
    const claimed = await claimOne(claimedAt);
    // The claim's lease ran out (its claimer stalled); another claimer takes the tracker over.
    const takenAt = new Date(claimedAt.getTime() + LEASE_MS + 1);
    const other = await claimOne(takenAt);
    expect(other.leaseToken).not.toBe(claimed.leaseToken);

    const hits = () => site.requests.filter((r) => r.path === "/resume-lost").length;
    const before = hits();
    const startAt = new Date(takenAt.getTime() + 1);
    const run = await observed(trackerId, (onStep) =>
      refreshTracker(t.db, trackerId, { ...options(startAt), claimed, onStep }),
    );
    expect(run.value).toMatchObject({ status: "skipped", outcome: "in_flight" });
    expect(hits()).toBe(before);
    expect(renewals(run.sent)).toHaveLength(1); // the renewal that found the lease gone
    const row = await t.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
    expect(row.leaseToken).toBe(other.leaseToken);
    expect(row.leaseExpiresAt?.getTime()).toBe(takenAt.getTime() + LEASE_MS);
    // The answer is in the runs log, finished.
    const skipped = await t.db.refreshRun.findUniqueOrThrow({ where: { id: run.value.runId } });
    expect(skipped).toMatchObject({ status: "skipped", outcome: "in_flight" });
    expect(skipped.finishedAt).not.toBeNull();
  });
});
