import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { createFinalWriteBatch } from "@/server/intelligence/refresh";
import { type TRunFinalInput, writeRunFinals } from "@/server/intelligence/refresh/run-record";
import { quietLogger } from "../bench/bench-trackers";
import { countSql } from "../bench/sql-counter";
import { createTestDb, type TTestDb } from "../helpers/db";
import { leasedTracker, type TLeasedTracker, unchangedWrite, writtenBy } from "../helpers/final-writes";

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
