import os from "node:os";
import type { TDb, TTx } from "../db";

/** A scheduler that keeps watch: an app server's own, `npm run worker`, or the cron route (docs/scheduling.md). */
export type TSchedulerKind = "app" | "worker" | "cron";

/** An idle scheduler writes its heartbeat at most this often; a pass that refreshed something always writes. */
export const HEARTBEAT_MS = 60_000;
/** The cron route's row: calls are expected at least hourly (Vercel Cron here calls every 5 minutes). */
const CRON_EXPECTED_MS = 30 * 60_000;
/** Besides two polls, how late a heartbeat may be (a long pass: budget, refreshes in flight, maintenance). */
const LATE_GRACE_MS = 5 * 60_000;
/** Rows of schedulers not seen for this long are deleted when a scheduler starts. */
const FORGET_AFTER_MS = 7 * 24 * 60 * 60_000;

export type TPassRecord = { startedAt: Date; durationMs: number; claimed: number; nextPassAt: Date | null };

/**
 * The `SchedulerInstance` row of one running scheduler (written only by this module): created when it starts,
 * refreshed after passes — every pass that claimed a tracker, otherwise at most every HEARTBEAT_MS, so an idle
 * scheduler costs one small write a minute — and marked stopped on a clean stop.
 */
export function createHeartbeat(db: TDb, input: { id: string; kind: Exclude<TSchedulerKind, "cron">; pollMs: number }) {
  let lastWrite = 0;
  let passes = 0;
  return {
    async start(now = new Date()): Promise<void> {
      await db.schedulerInstance.deleteMany({ where: { seenAt: { lt: new Date(now.getTime() - FORGET_AFTER_MS) } } });
      await db.schedulerInstance.upsert({
        where: { id: input.id },
        create: {
          id: input.id,
          kind: input.kind,
          host: os.hostname(),
          pid: process.pid,
          startedAt: now,
          seenAt: now,
          pollMs: input.pollMs,
          nextPassAt: now,
        },
        update: { seenAt: now, stoppedAt: null },
      });
      lastWrite = now.getTime();
    },
    async pass(pass: TPassRecord, now = new Date()): Promise<void> {
      passes++;
      if (pass.claimed === 0 && now.getTime() - lastWrite < HEARTBEAT_MS) return;
      lastWrite = now.getTime();
      await db.schedulerInstance.updateMany({
        where: { id: input.id },
        data: {
          seenAt: now,
          lastPassAt: pass.startedAt,
          lastPassMs: pass.durationMs,
          lastPassClaimed: pass.claimed,
          passes,
          nextPassAt: pass.nextPassAt,
        },
      });
    },
    async stop(now = new Date()): Promise<void> {
      await db.schedulerInstance.updateMany({
        where: { id: input.id },
        data: { seenAt: now, stoppedAt: now, nextPassAt: null, passes },
      });
    },
  };
}

/** The cron route's pass: one row for every cron caller ("cron"), refreshed on each call. */
export async function recordCronPass(db: TDb, pass: Omit<TPassRecord, "nextPassAt">, now = new Date()): Promise<void> {
  const data = {
    seenAt: now,
    lastPassAt: pass.startedAt,
    lastPassMs: pass.durationMs,
    lastPassClaimed: pass.claimed,
    pollMs: CRON_EXPECTED_MS,
  };
  await db.schedulerInstance.upsert({
    where: { id: "cron" },
    create: { id: "cron", kind: "cron", host: "", pid: 0, startedAt: now, passes: 1, ...data },
    update: { ...data, passes: { increment: 1 }, stoppedAt: null },
  });
}

export type TSchedulerSeen = {
  id: string;
  kind: TSchedulerKind;
  host: string;
  pid: number;
  startedAt: Date;
  seenAt: Date;
  lastPass: { at: Date; durationMs: number; claimed: number } | null;
  nextPassAt: Date | null;
  passes: number;
  /** Seen recently enough for its poll: it is keeping watch. */
  alive: boolean;
  stoppedAt: Date | null;
};

/** When a scheduler that polls every `pollMs` counts as gone. */
export function lateAfterMs(pollMs: number): number {
  return 2 * Math.max(pollMs, HEARTBEAT_MS) + LATE_GRACE_MS;
}

/** The schedulers seen in the last week, live ones first, newest heartbeat first. */
export async function listSchedulers(db: TDb, input: { now?: Date; limit?: number } = {}): Promise<TSchedulerSeen[]> {
  const now = input.now ?? new Date();
  const rows = await db.schedulerInstance.findMany({ orderBy: { seenAt: "desc" }, take: input.limit ?? 20 });
  return rows
    .map((row) => ({
      id: row.id,
      kind: row.kind as TSchedulerKind,
      host: row.host,
      pid: row.pid,
      startedAt: row.startedAt,
      seenAt: row.seenAt,
      lastPass:
        row.lastPassAt && row.lastPassMs !== null
          ? { at: row.lastPassAt, durationMs: row.lastPassMs, claimed: row.lastPassClaimed }
          : null,
      nextPassAt: row.nextPassAt,
      passes: row.passes,
      alive: row.stoppedAt === null && now.getTime() - row.seenAt.getTime() <= lateAfterMs(row.pollMs),
      stoppedAt: row.stoppedAt,
    }))
    .sort((a, b) => Number(b.alive) - Number(a.alive));
}

/** Whether any scheduler is keeping watch now (one read of the live rows; the tracker page's "overdue" says why not). */
export async function anySchedulerAlive(db: TDb | TTx, input: { now?: Date } = {}): Promise<boolean> {
  const now = input.now ?? new Date();
  // The longest any poll may make a heartbeat late (an hour's poll): rows older than that are gone anyway.
  const rows = await db.schedulerInstance.findMany({
    where: { stoppedAt: null, seenAt: { gte: new Date(now.getTime() - lateAfterMs(3_600_000)) } },
    select: { seenAt: true, pollMs: true },
  });
  return rows.some((row) => now.getTime() - row.seenAt.getTime() <= lateAfterMs(row.pollMs));
}
