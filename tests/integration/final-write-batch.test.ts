import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/server/generated/prisma/client";
import { createFinalWriteBatch } from "@/server/intelligence/refresh";
import { type TRunFinalInput, writeRunFinals } from "@/server/intelligence/refresh/run-record";
import { refreshSuccessSql } from "@/server/intelligence/tracker-store";
import type { TLogger } from "@/server/logger";
import { ensureEntity, stampCheckedSql, writeCurrentState } from "@/server/timeline";
import { countSql } from "../bench/sql-counter";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, cssPriceDefinition } from "../helpers/trackers";

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
const log: TLogger = {
  debug: () => {},
  info: () => {},
  warn: (msg) => void warnings.push(msg),
  error: (msg) => void warnings.push(msg),
  child: () => log,
};

/** A locked tracker holding a lease, with one entity: what a claimed, unchanged refresh ends with. */
async function leased() {
  const { tracker } = await createActiveTracker(t.db, {
    capability: "web.scrape",
    capabilityInput: { url: `https://shop.example/${randomUUID()}` },
    definition: cssPriceDefinition(0.05),
  });
  const leaseToken = `${randomUUID()}:${randomUUID()}`;
  await t.db.tracker.update({
    where: { id: tracker.id },
    data: { leaseToken, leaseExpiresAt: new Date(Date.now() + 60_000) },
  });
  const entity = await ensureEntity(t.db, { trackerId: tracker.id, entityKey: `https://shop.example/${tracker.id}` });
  await writeCurrentState(t.db, {
    entityId: entity.id,
    fields: {},
    contentHash: "old",
    definitionVersion: 1,
    checkedAt: new Date(0),
  });
  return { trackerId: tracker.id, leaseToken, entityId: entity.id };
}

type TLeased = Awaited<ReturnType<typeof leased>>;

/** The final write of an unchanged run (as refresh-tracker.ts composes it); `token` overrides the lease it claims. */
function unchangedWrite(l: TLeased, token = l.leaseToken, extra: TRunFinalInput["extra"] = undefined): TRunFinalInput {
  const now = new Date();
  return {
    fence: refreshSuccessSql({ trackerId: l.trackerId, leaseToken: token, scheduleMinutes: 60, now }),
    run: {
      id: randomUUID(),
      trackerId: l.trackerId,
      trigger: "cron",
      idempotencyKey: null,
      status: "completed",
      outcome: "unchanged",
      summary: "no change",
      definitionVersion: 1,
      steps: [],
      modelCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      error: null,
      startedAt: now,
      finishedAt: now,
    },
    ledger: [
      {
        callKey: "crawl:web.scrape",
        info: {
          capability: "web.scrape",
          input: {},
          status: "completed",
          requests: 1,
          bytes: 100,
          durationMs: 3,
          startedAt: now,
        },
      },
    ],
    fenced: true,
    extra: extra ?? ((guard) => [stampCheckedSql({ entityId: l.entityId, contentHash: "new", checkedAt: now, guard })]),
  };
}

async function written(l: TLeased, input: TRunFinalInput) {
  const run = await t.db.refreshRun.findUnique({ where: { id: input.run.id } });
  const ledger = await t.db.capabilityCall.count({ where: { runId: input.run.id } });
  const state = await t.db.entityCurrentState.findUniqueOrThrow({ where: { entityId: l.entityId } });
  const tracker = await t.db.tracker.findUniqueOrThrow({ where: { id: l.trackerId } });
  return { run: run !== null, ledger, hash: state.contentHash, leaseToken: tracker.leaseToken };
}

describe("several runs' final writes in one statement", () => {
  it("each run is fenced on its own lease: one that lost it writes nothing, the others are written", async () => {
    const trackers = [await leased(), await leased(), await leased()];
    const inputs = trackers.map((l, i) => unchangedWrite(l, i === 1 ? "someone-else:token" : l.leaseToken));
    const counter = countSql(t.pglite);
    const held = await writeRunFinals(t.db, inputs).finally(() => counter.restore());
    expect(held).toEqual([true, false, true]);
    expect(counter.statements).toBe(1);
    expect(counter.transactions).toBe(0);
    const [first, lost, third] = await Promise.all(trackers.map((l, i) => written(l, inputs[i] as TRunFinalInput)));
    for (const ok of [first, third]) expect(ok).toEqual({ run: true, ledger: 1, hash: "new", leaseToken: null });
    expect(lost).toEqual({ run: false, ledger: 0, hash: "old", leaseToken: trackers[1]?.leaseToken });
  });

  it("a batch sends its writes as one statement once it is full, and each write hears its own answer", async () => {
    const trackers = [await leased(), await leased(), await leased()];
    const batch = createFinalWriteBatch(t.db, { log, maxRows: 3, maxWaitMs: 60_000 });
    const inputs = trackers.map((l, i) => unchangedWrite(l, i === 2 ? "lost:token" : l.leaseToken));
    const counter = countSql(t.pglite);
    const answers = await Promise.all(inputs.map((input) => batch.write(input))).finally(() => counter.restore());
    expect(answers).toEqual([{ held: true }, { held: true }, { held: false }]);
    expect(counter.statements).toBe(1);
    expect((await written(trackers[0] as TLeased, inputs[0] as TRunFinalInput)).run).toBe(true);
  });

  it("a write that waits alone is sent after the wait, without a flush", async () => {
    const l = await leased();
    const batch = createFinalWriteBatch(t.db, { log, maxRows: 16, maxWaitMs: 20 });
    const input = unchangedWrite(l);
    expect(await batch.write(input)).toEqual({ held: true });
    expect((await written(l, input)).run).toBe(true);
  });

  it("nothing is written before the batch is sent: a process that dies meanwhile leaves no run and a lease that expires", async () => {
    const l = await leased();
    const batch = createFinalWriteBatch(t.db, { log, maxRows: 16, maxWaitMs: 60_000 });
    const input = unchangedWrite(l);
    const answer = batch.write(input);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await written(l, input)).toEqual({ run: false, ledger: 0, hash: "old", leaseToken: l.leaseToken });
    await batch.flush(); // the test's own cleanup: a dead process sends nothing
    expect(await answer).toEqual({ held: true });
  });

  it("a failing batch statement is retried run by run: one bad run fails alone", async () => {
    warnings.length = 0;
    const trackers = [await leased(), await leased(), await leased()];
    // A part that fails when it runs (data-modifying sub-statements always run): division by zero.
    const failing: TRunFinalInput["extra"] = (guard) => [
      {
        name: "boom",
        sql: Prisma.sql`UPDATE "Tracker" SET "scheduleMinutes" = 1 / 0 WHERE "id" = ${trackers[1]?.trackerId} AND EXISTS (SELECT 1 FROM ${Prisma.raw(`"${guard}"`)})`,
      },
    ];
    const inputs = trackers.map((l, i) => unchangedWrite(l, l.leaseToken, i === 1 ? failing : undefined));
    const batch = createFinalWriteBatch(t.db, { log, maxRows: 3, maxWaitMs: 60_000 });
    const answers = await Promise.allSettled(inputs.map((input) => batch.write(input)));
    expect(answers.map((a) => a.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((answers[1] as PromiseRejectedResult).reason)).toMatch(/division by zero/);
    expect(warnings).toContain("a batch of final writes failed; writing each run on its own");
    const states = await Promise.all(trackers.map((l, i) => written(l, inputs[i] as TRunFinalInput)));
    expect(states.map((s) => s.run)).toEqual([true, false, true]);
    expect(states[1]).toEqual({ run: false, ledger: 0, hash: "old", leaseToken: trackers[1]?.leaseToken });
  });
});
