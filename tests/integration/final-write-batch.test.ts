import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { createFinalWriteBatch } from "@/server/intelligence/refresh";
import { type TRunFinalInput, writeRunFinals } from "@/server/intelligence/refresh/run-record";
import { quietLogger } from "../bench/bench-trackers";
import { countSql } from "../bench/sql-counter";
import { createTestDb, type TTestDb } from "../helpers/db";
import {
  countedBy,
  countedWrite,
  leasedTracker,
  type TLeasedTracker,
  unchangedWrite,
  writtenBy,
} from "../helpers/final-writes";

/**
 * Issue "Refresh at the floor": the claim loop writes its unchanged runs several to a statement. Each run in
 * such a statement is fenced on its own lease, and a statement that fails is retried run by run.
 */

let t: TTestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => {
  await t?.close();
});

const warnings: string[] = [];
const log = quietLogger(warnings);

describe("several runs' final writes in one statement", () => {
  it("each run is fenced on its own lease: one that lost it writes nothing, the others are written", async () => {
    const trackers = [await leasedTracker(t.db), await leasedTracker(t.db), await leasedTracker(t.db)];
    const inputs = trackers.map((l, i) => unchangedWrite(l, { token: i === 1 ? "someone-else:token" : l.leaseToken }));
    const counter = countSql(t.pglite);
    const held = await writeRunFinals(t.db, inputs).finally(() => counter.restore());
    expect(held).toEqual([true, false, true]);
    expect(counter.statements).toBe(1);
    expect(counter.transactions).toBe(0);
    const [first, lost, third] = await Promise.all(
      trackers.map((l, i) => writtenBy(t.db, l, inputs[i] as TRunFinalInput)),
    );
    for (const ok of [first, third]) expect(ok).toEqual({ run: true, ledger: 1, hash: "new", leaseToken: null });
    expect(lost).toEqual({ run: false, ledger: 0, hash: "old", leaseToken: trackers[1]?.leaseToken });
  });

  it("a batch sends its writes as one statement once it is full, and each write hears its own answer", async () => {
    const trackers = [await leasedTracker(t.db), await leasedTracker(t.db), await leasedTracker(t.db)];
    const batch = createFinalWriteBatch(t.db, { log, maxRows: 3, maxWaitMs: 60_000 });
    const inputs = trackers.map((l, i) => unchangedWrite(l, { token: i === 2 ? "lost:token" : l.leaseToken }));
    const counter = countSql(t.pglite);
    const answers = await Promise.all(inputs.map((input) => batch.write(input))).finally(() => counter.restore());
    expect(answers).toEqual([{ held: true }, { held: true }, { held: false }]);
    expect(counter.statements).toBe(1);
    expect((await writtenBy(t.db, trackers[0] as TLeasedTracker, inputs[0] as TRunFinalInput)).run).toBe(true);
  });

  it("a write that waits alone is sent after the wait, without a flush", async () => {
    const l = await leasedTracker(t.db);
    const batch = createFinalWriteBatch(t.db, { log, maxRows: 16, maxWaitMs: 20 });
    const input = unchangedWrite(l);
    expect(await batch.write(input)).toEqual({ held: true });
    expect((await writtenBy(t.db, l, input)).run).toBe(true);
  });

  it("nothing is written before the batch is sent: a process that dies meanwhile leaves no run, and the lease as it was", async () => {
    const l = await leasedTracker(t.db);
    const batch = createFinalWriteBatch(t.db, { log, maxRows: 16, maxWaitMs: 60_000 });
    const input = unchangedWrite(l);
    const answer = batch.write(input);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await writtenBy(t.db, l, input)).toEqual({ run: false, ledger: 0, hash: "old", leaseToken: l.leaseToken });
    await batch.flush(); // the test's own cleanup: a dead process sends nothing
    expect(await answer).toEqual({ held: true });
  });

  it("a failing batch statement is retried run by run: one bad run fails alone", async () => {
    warnings.length = 0;
    const trackers = [await leasedTracker(t.db), await leasedTracker(t.db), await leasedTracker(t.db)];
    // A part that fails when it runs (data-modifying sub-statements always run): division by zero.
    const failing: TRunFinalInput["extra"] = (guard) => [
      {
        name: "boom",
        sql: Prisma.sql`UPDATE "Tracker" SET "scheduleMinutes" = 1 / 0 WHERE "id" = ${trackers[1]?.trackerId} AND EXISTS (SELECT 1 FROM ${Prisma.raw(`"${guard}"`)})`,
      },
    ];
    const inputs = trackers.map((l, i) => unchangedWrite(l, i === 1 ? { extra: failing } : {}));
    const batch = createFinalWriteBatch(t.db, { log, maxRows: 3, maxWaitMs: 60_000 });
    const answers = await Promise.allSettled(inputs.map((input) => batch.write(input)));
    expect(answers.map((a) => a.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((answers[1] as PromiseRejectedResult).reason)).toMatch(/division by zero/);
    expect(warnings.some((w) => w.startsWith("a batch of final writes failed; writing each run on its own"))).toBe(
      true,
    );
    const states = await Promise.all(trackers.map((l, i) => writtenBy(t.db, l, inputs[i] as TRunFinalInput)));
    expect(states.map((s) => s.run)).toEqual([true, false, true]);
    expect(states[1]).toEqual({ run: false, ledger: 0, hash: "old", leaseToken: trackers[1]?.leaseToken });
  });
});

describe("counted checks in a statement: rows of one set of parts", () => {
  const now = new Date("2026-12-07T10:00:00.000Z");
  const health = {
    health: { read: 1, total: 2, misses: { plan: { runs: 2, why: "`#plan` matches nothing" } } },
    attentionReason: null,
  };
  const validators = {
    etag: '"v2"',
    lastModified: null,
    url: "https://shop.example/p",
    version: 1,
    entityId: "e-1",
    contentHash: "new",
  };

  it("each is fenced on its own lease, beside a run written by parts of its own, in one statement", async () => {
    const trackers = await Promise.all([0, 1, 2, 3].map(() => leasedTracker(t.db)));
    const [held, lost, own, withHealth] = trackers as [TLeasedTracker, TLeasedTracker, TLeasedTracker, TLeasedTracker];
    const ownWrite = unchangedWrite(own);
    const inputs = [
      countedWrite(held, { now }),
      countedWrite(lost, { now, token: "someone-else:token" }),
      ownWrite,
      countedWrite(withHealth, { now, fieldHealth: health, pageValidators: validators }),
    ];
    const counter = countSql(t.pglite);
    const answers = await writeRunFinals(t.db, inputs).finally(() => counter.restore());
    expect(answers).toEqual([true, false, true, true]);
    expect(counter.statements).toBe(1);
    expect(counter.transactions).toBe(0);

    const written = await countedBy(t.db, held);
    expect(written).toMatchObject({
      leaseToken: null,
      lastRunAt: now,
      fieldHealth: null,
      pageValidators: null,
      hash: "new",
      checkedAt: now,
      days: [{ unchanged: 1, skipped: 0, capabilityCalls: 1, requests: 1, bytes: 100 }],
      runs: 0,
    });
    // The schedule (60 minutes) and the tracker's jitter (at most 5 minutes), as refreshSuccessSql writes it.
    const next = (written.nextRunAt as Date).getTime() - now.getTime();
    expect(next).toBeGreaterThanOrEqual(60 * 60_000);
    expect(next).toBeLessThanOrEqual(65 * 60_000);

    expect(await countedBy(t.db, lost)).toMatchObject({
      leaseToken: lost.leaseToken,
      lastRunAt: null,
      hash: "old",
      days: [],
      runs: 0,
    });
    expect(await writtenBy(t.db, own, ownWrite)).toEqual({ run: true, ledger: 1, hash: "new", leaseToken: null });
    expect(await countedBy(t.db, withHealth)).toMatchObject({
      leaseToken: null,
      fieldHealth: health.health,
      attentionReason: null,
      pageValidators: validators,
      hash: "new",
      days: [{ unchanged: 1 }],
    });
  });

  it("keeps field health and validators it does not name, and adds to the day's row", async () => {
    const [l, other] = [await leasedTracker(t.db), await leasedTracker(t.db)] as [TLeasedTracker, TLeasedTracker];
    await t.db.tracker.update({
      where: { id: l.trackerId },
      data: { fieldHealth: health.health, attentionReason: "plan reads nothing", pageValidators: validators },
    });
    // Two counted checks a statement, so both go through the set-based parts (one alone is written by its own parts).
    expect(await writeRunFinals(t.db, [countedWrite(l, { now }), countedWrite(other, { now })])).toEqual([true, true]);
    const later = new Date(now.getTime() + 3_600_000);
    for (const x of [l, other])
      await t.db.tracker.update({ where: { id: x.trackerId }, data: { leaseToken: "again:token" } });
    const again = [l, other].map((x) => countedWrite(x, { now: later, token: "again:token" }));
    expect(await writeRunFinals(t.db, again)).toEqual([true, true]);
    expect(await countedBy(t.db, l)).toMatchObject({
      leaseToken: null,
      lastRunAt: later,
      fieldHealth: health.health,
      attentionReason: "plan reads nothing",
      pageValidators: validators,
      checkedAt: later,
      days: [{ unchanged: 2, skipped: 0, capabilityCalls: 2, requests: 2, bytes: 200 }],
      runs: 0,
    });
  });

  it("one counted check alone is written by parts of its own, to the same effect", async () => {
    const l = await leasedTracker(t.db);
    const counter = countSql(t.pglite);
    expect(await writeRunFinals(t.db, [countedWrite(l, { now })]).finally(() => counter.restore())).toEqual([true]);
    expect(counter.statements).toBe(1);
    expect(await countedBy(t.db, l)).toMatchObject({
      leaseToken: null,
      lastRunAt: now,
      hash: "new",
      checkedAt: now,
      days: [{ unchanged: 1, skipped: 0, capabilityCalls: 1, requests: 1, bytes: 100 }],
      runs: 0,
    });
  });
});
