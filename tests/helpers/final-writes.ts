import { randomUUID } from "node:crypto";
import type { TDb } from "@/server/db";
import { successWrite } from "@/server/intelligence/refresh/finish-run";
import type {
  TBufferedLedgerEntry,
  TCountedWrite,
  TRunFinalInput,
  TRunRecord,
} from "@/server/intelligence/refresh/run-record";
import { stampWrites } from "@/server/intelligence/refresh/timeline-writes";
import { refreshSuccessSql, type TSuccessInput } from "@/server/intelligence/tracker-store";
import { ensureEntity, stampCheckedSql, writeCurrentState } from "@/server/timeline";
import { createActiveTracker, cssPriceDefinition } from "./trackers";

/**
 * Runs' final writes as the refresh composes them, for the batch tests on either database
 * (final-write-batch.test.ts, final-write-batch.pg.test.ts) and the counted check's fence (refresh-counted-checks.test.ts).
 */

/** A locked tracker holding a lease, with one entity (state hash "old"): what a claimed, unchanged refresh ends with. */
export async function leasedTracker(db: TDb) {
  const { tracker } = await createActiveTracker(db, {
    capability: "web.scrape",
    capabilityInput: { url: `https://shop.example/${randomUUID()}` },
    definition: cssPriceDefinition(0.05),
  });
  const leaseToken = `${randomUUID()}:${randomUUID()}`;
  await db.tracker.update({
    where: { id: tracker.id },
    data: { leaseToken, leaseExpiresAt: new Date(Date.now() + 60_000) },
  });
  const entity = await ensureEntity(db, { trackerId: tracker.id, entityKey: `https://shop.example/${tracker.id}` });
  await writeCurrentState(db, {
    entityId: entity.id,
    fields: {},
    contentHash: "old",
    definitionVersion: 1,
    checkedAt: new Date(0),
  });
  return { trackerId: tracker.id, leaseToken, entityId: entity.id };
}

export type TLeasedTracker = Awaited<ReturnType<typeof leasedTracker>>;

/** A scheduled run that found its page unchanged, as the refresh records it. */
function unchangedRun(l: TLeasedTracker, now: Date): TRunRecord {
  return {
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
  };
}

/** Its one capability call: 1 request, 100 bytes. */
function oneCall(now: Date): TBufferedLedgerEntry[] {
  return [
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
  ];
}

/** The final write of an unchanged run (stamp "new"); `token` overrides the lease it claims to hold. */
export function unchangedWrite(
  l: TLeasedTracker,
  options: {
    token?: string;
    extra?: TRunFinalInput["extra"];
    notify?: TRunFinalInput["notify"];
  } = {},
): TRunFinalInput {
  const now = new Date();
  return {
    fence: refreshSuccessSql({
      trackerId: l.trackerId,
      leaseToken: options.token ?? l.leaseToken,
      scheduleMinutes: 60,
      now,
    }),
    run: unchangedRun(l, now),
    ledger: oneCall(now),
    fenced: true,
    extra:
      options.extra ??
      ((guard) => [stampCheckedSql({ entityId: l.entityId, contentHash: "new", checkedAt: now, guard })]),
    ...(options.notify ? { notify: options.notify } : {}),
  };
}

/**
 * A counted check's final write, composed as finish-run.ts composes it (`successWrite`: a scheduled unchanged run
 * without a key, as rows): stamp "new", one capability call of 1 request and 100 bytes.
 */
export function countedWrite(
  l: TLeasedTracker,
  options: {
    token?: string;
    notify?: { channel: string; payload: string };
    fieldHealth?: TSuccessInput["fieldHealth"];
    pageValidators?: TSuccessInput["pageValidators"];
    now?: Date;
  } = {},
): TCountedWrite {
  const now = options.now ?? new Date();
  const write = successWrite({
    run: unchangedRun(l, now),
    success: {
      trackerId: l.trackerId,
      leaseToken: options.token ?? l.leaseToken,
      scheduleMinutes: 60,
      now,
      fieldHealth: options.fieldHealth,
      pageValidators: options.pageValidators,
    },
    ledger: oneCall(now),
    writes: stampWrites({ entityId: l.entityId, contentHash: "new" }),
    notify: [options.notify ?? null],
  });
  if (!("counted" in write)) throw new Error("a scheduled unchanged check was not composed as a counted write");
  return write;
}

/** What a counted check left: its tracker's bookkeeping, the entity's stamp, and its tracker's day counts. */
export async function countedBy(db: TDb, l: TLeasedTracker) {
  const tracker = await db.tracker.findUniqueOrThrow({ where: { id: l.trackerId } });
  const state = await db.entityCurrentState.findUniqueOrThrow({ where: { entityId: l.entityId } });
  const days = await db.runDailyStat.findMany({ where: { trackerId: l.trackerId } });
  return {
    leaseToken: tracker.leaseToken,
    lastRunAt: tracker.lastRunAt,
    nextRunAt: tracker.nextRunAt,
    fieldHealth: tracker.fieldHealth,
    attentionReason: tracker.attentionReason,
    pageValidators: tracker.pageValidators,
    hash: state.contentHash,
    checkedAt: state.lastCheckedAt,
    days: days.map((d) => ({
      unchanged: d.unchanged,
      skipped: d.skipped,
      capabilityCalls: d.capabilityCalls,
      requests: d.requests,
      bytes: Number(d.bytes),
    })),
    runs: await db.refreshRun.count({ where: { trackerId: l.trackerId } }),
  };
}

/** What a final write left: its run row, its ledger rows, the entity's hash, the tracker's lease. */
export async function writtenBy(db: TDb, l: TLeasedTracker, input: TRunFinalInput) {
  const run = await db.refreshRun.findUnique({ where: { id: input.run.id } });
  const ledger = await db.capabilityCall.count({ where: { runId: input.run.id } });
  const state = await db.entityCurrentState.findUniqueOrThrow({ where: { entityId: l.entityId } });
  const tracker = await db.tracker.findUniqueOrThrow({ where: { id: l.trackerId } });
  return { run: run !== null, ledger, hash: state.contentHash, leaseToken: tracker.leaseToken };
}
