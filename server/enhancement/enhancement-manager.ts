import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { TFeedItem } from "@/contracts/feed-item";
import { getModel, meterModel, type TLanguageModel } from "../ai";
import type { TDb } from "../db";
import { detachedDefer, type TDefer } from "../defer";
import { publish } from "../events";
import { Prisma } from "../generated/prisma/client";
import { LruMap } from "../lib/lru-map";
import { logger } from "../logger";
import { getUserSettings } from "../settings/user-settings";
import { recordModelUsage, spentModelBudget } from "../usage";
import { buildHarnessInput, hashHarnessInput } from "./build-input";
import { runHarness } from "./run-harness";
import { type TEnhancementResult, ZEnhancementResultSchema } from "./schema";
import { keepSafeSynthetic } from "./synthetic-spec";

export const INACTIVE_AFTER_MS = 2 * 3_600_000;

/** docs/design.md §6 cost control: the harness runs only for people who opened the app in the last 2 hours. */
export function isRecentlyActive(lastActiveAt: Date | null, now: Date): boolean {
  return lastActiveAt !== null && now.getTime() - lastActiveAt.getTime() <= INACTIVE_AFTER_MS;
}
const LEASE_MS = 120_000;
/** Follow-up calls one holder makes for input that changed while it ran (each one is a distinct newer input). */
const MAX_FOLLOW_UPS = 2;
const BACKOFF_BASE_MS = 60_000;
const BACKOFF_MAX_MS = 32 * 60_000;

export type TEnhanceOutcome =
  | "rules"
  | "no_slots"
  | "inactive"
  | "cached"
  | "in_flight"
  | "superseded"
  | "backoff"
  | "enhanced"
  | "failed"
  /** The person's monthly model-token budget is spent: skipped, no model call (docs/design.md §9). */
  | "over_budget";

export type TEnhanceOptions = {
  now?: Date;
  debounceMs?: number;
  /** Tests inject a model; default `getModel("enhancer")` (null → rules mode). */
  model?: TLanguageModel | null;
  /** Prompt budget for the items' JSON (default `MAX_PROMPT_ITEMS_CHARS`); tests make it small. */
  maxItemsChars?: number;
  /**
   * When the caller began reading what `items` and `memory` were built from (`performance.now()`, taken before the
   * settings are read); default: the call itself. A request whose inputs were read before those of a request
   * already accepted for the person yields to it (see `requestEnhancement`).
   */
  inputsReadAt?: number;
  /**
   * When the person was last active, as the caller already read it with their settings (a feed load passes it down, so
   * the enhancement does not read the settings again). Absent: read here.
   */
  lastActiveAt?: Date | null;
  /**
   * The time when each model call is made: the prompt's "Current time" and the lease of a follow-up call (a slow
   * model's follow-up must not write "leave by…" against the clock of the call before it). Default: `now` plus the
   * time elapsed since this request, so a caller's fixed `now` (tests, a background pass) moves on consistently.
   */
  clock?: () => Date;
  /**
   * Where input left pending after the last follow-up a holder may run is taken up (see `runAsHolder`); default the
   * tracked detached promise of server/defer.ts.
   */
  defer?: TDefer;
};

/** The last stored enhancement (merged by the fast path), and the hash it was computed for. */
export async function getCachedEnhancement(
  db: TDb,
  userId: string,
): Promise<{ result: TEnhancementResult | null; inputHash: string | null }> {
  // Only what the fast path merges: the pending input beside it can be as big as the whole prompt.
  const row = await db.feedEnhancement.findUnique({ where: { userId }, select: { inputHash: true, result: true } });
  return { result: parseStoredEnhancement(row?.result, userId), inputHash: row?.inputHash ?? null };
}

/** A stored `FeedEnhancement.result` as the fast path merges it: null when absent or invalid. */
export function parseStoredEnhancement(stored: unknown, userId: string): TEnhancementResult | null {
  const parsed = stored ? ZEnhancementResultSchema.safeParse(stored) : null;
  if (!parsed?.success) return null;
  // The same synthetic check as a fresh answer: a row stored before a rule existed must not reach a browser.
  const synthetic = keepSafeSynthetic(parsed.data.syntheticItems);
  if (synthetic.dropped.length > 0) {
    logger.warn("cached feed enhancement had unsafe synthetic items; dropped", { userId, dropped: synthetic.dropped });
  }
  return { ...parsed.data, syntheticItems: synthetic.kept };
}

// Per-process debounce; the FeedEnhancement lease makes the call single flight within and across processes.
type TPending = {
  timer: NodeJS.Timeout;
  resolve: (o: TEnhanceOutcome) => void;
};
const g = globalThis as {
  __bellwetherEnhance?: { pending: Map<string, TPending> };
  __bellwetherEnhanceNewest?: LruMap<string, { inputsReadAt: number }>;
};
g.__bellwetherEnhance ??= { pending: new Map() };
const local = g.__bellwetherEnhance;
/** Per person, the newest inputs a request was accepted for (waiting in the debounce or already run). */
g.__bellwetherEnhanceNewest ??= new LruMap(10_000);
const newest = g.__bellwetherEnhanceNewest;

/**
 * Slow path: if the input hash changed, run the harness (debounced, single flight), store the result and
 * notify open pages. A request that finds the call in flight records its input as pending, and the holder
 * runs once more for it afterwards. Resolves with what happened; never throws.
 */
export function requestEnhancement(
  db: TDb,
  userId: string,
  items: TFeedItem[],
  memory: string,
  opts: TEnhanceOptions = {},
): Promise<TEnhanceOutcome> {
  const debounceMs = opts.debounceMs ?? 0;
  const inputsReadAt = opts.inputsReadAt ?? performance.now();
  const clock = opts.clock ?? elapsedClock(opts.now ?? new Date());
  // Built from older inputs than a request already accepted (a background rebuild that read the settings before an
  // edit a page load has since seen): that one is the newer feed. Running this one too would spend a call on an
  // answer stale when it arrives — or, left pending behind the newer call, have the holder run it last.
  if (inputsReadAt < (newest.get(userId)?.inputsReadAt ?? Number.NEGATIVE_INFINITY)) {
    return Promise.resolve("superseded");
  }
  newest.set(userId, { inputsReadAt });
  const prev = local.pending.get(userId);
  if (prev) {
    clearTimeout(prev.timer);
    prev.resolve("superseded");
  }
  return new Promise<TEnhanceOutcome>((resolve) => {
    const timer = setTimeout(() => {
      local.pending.delete(userId);
      resolve(
        enhanceNow(db, userId, items, memory, { ...opts, clock }).catch((error): TEnhanceOutcome => {
          logger.warn("feed enhancement failed", { error: error instanceof Error ? error.message : String(error) });
          return "failed";
        }),
      );
    }, debounceMs);
    local.pending.set(userId, { timer, resolve });
  });
}

/** One unit of work: what is sent, its hash, and every item id the answer may refer to. */
const ZJobSchema = z.object({
  input: z.object({
    items: z.array(
      z.object({
        id: z.string(),
        type: z.string(),
        data: z.record(z.string(), z.unknown()),
        slots: z.record(z.string(), z.string()),
      }),
    ),
    userMemory: z.string(),
  }),
  knownIds: z.array(z.string()),
});
type TJob = z.infer<typeof ZJobSchema> & { hash: string };

/** `start` moving on with the process's monotonic clock: the default `clock` of a request (see TEnhanceOptions). */
export function elapsedClock(start: Date): () => Date {
  const startedAt = performance.now();
  return () => new Date(start.getTime() + (performance.now() - startedAt));
}

/** How a holder runs: the request's time, the clock each call reads, and what takes up input left after the cap. */
type THolderRun = { now: Date; clock: () => Date; debounceMs: number; defer: TDefer };

/** 1, 2, 4… minutes after consecutive failures, at most `BACKOFF_MAX_MS`. */
export function backoffMs(failures: number): number {
  return Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1), BACKOFF_MAX_MS);
}

async function enhanceNow(
  db: TDb,
  userId: string,
  items: TFeedItem[],
  memory: string,
  opts: TEnhanceOptions & { clock: () => Date },
): Promise<TEnhanceOutcome> {
  const now = opts.now ?? new Date();
  const run: THolderRun = {
    now,
    clock: opts.clock,
    debounceMs: opts.debounceMs ?? 0,
    defer: opts.defer ?? detachedDefer,
  };
  const model = opts.model === undefined ? getModel("enhancer") : opts.model;
  if (!model) return "rules";
  const { left, ...input } = buildHarnessInput(
    items.filter((i) => !i.synthetic),
    memory,
    opts.maxItemsChars,
  );
  if (input.items.length === 0) return "no_slots";
  if (left.length > 0) logger.info("feed enhancement prompt budget left items out", { userId, left: left.length });
  const lastActiveAt =
    opts.lastActiveAt !== undefined ? opts.lastActiveAt : (await getUserSettings(db, userId)).lastActiveAt;
  if (!isRecentlyActive(lastActiveAt, now)) return "inactive";
  const job: TJob = { input, knownIds: items.map((i) => i.id), hash: hashHarnessInput(input) };

  // The upsert answers with the row: no second read.
  const row = await db.feedEnhancement.upsert({ where: { userId }, create: { userId }, update: {} });
  if (row.inputHash === job.hash) return "cached";
  // Failures back off for every process (the time is stored); the next request after it retries.
  if (row.retryAfter && row.retryAfter > now) return "backoff";
  // Budget spent → the feed keeps its last enhancement (or none) and its rule-based text; no model call.
  if (await spentModelBudget(db, { userId, now })) return "over_budget";

  const first = await runAsHolder(db, userId, model, job, run, row.pendingHash ?? null);
  if (first !== "in_flight") return first;
  // Someone holds the lease: leave our input for them to run after their call...
  await db.feedEnhancement.updateMany({
    where: { userId },
    data: { pendingHash: job.hash, pendingInput: { input: job.input, knownIds: job.knownIds } as object },
  });
  // ...unless they finished between our claim and that write (they read pending only after releasing).
  return runAsHolder(db, userId, model, job, run);
}

/**
 * Claims the lease and runs `job`; then, after releasing, looks at what was left pending while it ran and,
 * if that differs from what it just enhanced, claims again and runs it (at most `MAX_FOLLOW_UPS` times).
 * Releasing before looking closes the race with a requester that writes pending just as this call ends.
 * Each call reads its own time (`run.clock`), so a follow-up after a slow call is written, and leased, at the time
 * it is made, not at the first call's (docs/feed.md, "Follow-up calls carry their own time"). Input still pending
 * after the last follow-up is handed to `run.defer` (`runPendingAfterCap`) instead of waiting for the next load.
 * The outcome is the first round's; "in_flight" when the lease is held elsewhere.
 */
async function runAsHolder(
  db: TDb,
  userId: string,
  model: TLanguageModel,
  firstJob: TJob,
  run: THolderRun,
  /** Pending input seen before claiming: older than `firstJob` (e.g. left by a failed call), dropped on claim. */
  stalePending: string | null = null,
): Promise<TEnhanceOutcome> {
  let job = firstJob;
  let outcome: TEnhanceOutcome | undefined;
  for (let round = 0; ; round++) {
    // The first claim is the request's, at its time; a follow-up's is made (and expires) by the clock.
    const at = round === 0 ? run.now : run.clock();
    const token = randomUUID();
    const claimed = await db.feedEnhancement.updateMany({
      where: { userId, OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lt: at } }] },
      data: { leaseToken: token, leaseExpiresAt: new Date(at.getTime() + LEASE_MS) },
    });
    if (claimed.count === 0) return outcome ?? "in_flight";
    if (round === 0 && stalePending) {
      // Only that exact value: a requester that lost the claim to us writes a newer one after this point.
      await db.feedEnhancement.updateMany({
        where: { userId, pendingHash: stalePending },
        data: { pendingHash: null, pendingInput: Prisma.DbNull },
      });
    }
    let ran: TEnhanceOutcome;
    try {
      ran = await runOnce(db, userId, model, job, token, { clock: run.clock, requestedAt: run.now });
    } catch (error) {
      // A failed follow-up is backed off like any call; the caller still gets the first round's outcome.
      if (outcome === undefined) throw error;
      logger.warn("feed enhancement follow-up failed", {
        error: error instanceof Error ? error.message : String(error),
      });
      return outcome;
    } finally {
      await db.feedEnhancement
        .updateMany({ where: { userId, leaseToken: token }, data: { leaseToken: null, leaseExpiresAt: null } })
        .catch(() => {});
    }
    outcome ??= ran;
    const row = await db.feedEnhancement.findUnique({ where: { userId } });
    if (!row?.pendingHash) return outcome;
    if (row.pendingHash === row.inputHash || row.pendingHash === job.hash) {
      // Already enhanced: clear it unless a newer one replaced it meanwhile.
      await db.feedEnhancement.updateMany({
        where: { userId, pendingHash: row.pendingHash },
        data: { pendingHash: null, pendingInput: Prisma.DbNull },
      });
      return outcome;
    }
    const pending = ZJobSchema.safeParse(row.pendingInput);
    if (!pending.success) {
      await db.feedEnhancement.updateMany({
        where: { userId, pendingHash: row.pendingHash },
        data: { pendingHash: null, pendingInput: Prisma.DbNull },
      });
      return outcome;
    }
    if (round >= MAX_FOLLOW_UPS) {
      // This holder has done its share (a page load's `after()` must end); the newest input still runs, after it.
      run.defer(() => runPendingAfterCap(db, userId, model, run));
      return outcome;
    }
    job = { ...pending.data, hash: row.pendingHash };
  }
}

/**
 * Input left pending when a holder reached `MAX_FOLLOW_UPS`: after the debounce, the newest pending input runs as a
 * holder of its own (with its own follow-ups), unless it was enhanced meanwhile, the backoff or the budget says no,
 * or someone else holds the lease (who then runs it after their call). Each call reads the time when it is made.
 * Where nothing outlives a request (serverless), a task cut short leaves the input for the next load, as before.
 */
async function runPendingAfterCap(db: TDb, userId: string, model: TLanguageModel, prev: THolderRun): Promise<void> {
  if (prev.debounceMs > 0) await new Promise((resolve) => setTimeout(resolve, prev.debounceMs));
  const now = prev.clock();
  const row = await db.feedEnhancement.findUnique({ where: { userId } });
  if (!row?.pendingHash || row.pendingHash === row.inputHash) return;
  if (row.retryAfter && row.retryAfter > now) return;
  const pending = ZJobSchema.safeParse(row.pendingInput);
  if (!pending.success) return;
  if (await spentModelBudget(db, { userId, now })) return;
  const job: TJob = { ...pending.data, hash: row.pendingHash };
  try {
    const outcome = await runAsHolder(db, userId, model, job, { ...prev, now });
    logger.info("feed enhancement ran input left after the follow-up cap", { userId, outcome });
  } catch (error) {
    logger.warn("feed enhancement after the follow-up cap failed", {
      userId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** One model call under the lease `token`: store the result (resetting the backoff) or record the failure. */
async function runOnce(
  db: TDb,
  userId: string,
  model: TLanguageModel,
  job: TJob,
  token: string,
  /** `clock`: read when the call is made (the prompt's current time); `requestedAt`: what the backoff counts from. */
  time: { clock: () => Date; requestedAt: Date },
): Promise<TEnhanceOutcome> {
  // Someone may have finished this exact input between our read and the claim.
  const fresh = await db.feedEnhancement.findUnique({ where: { userId } });
  if (fresh?.inputHash === job.hash) return "cached";
  // Every call and token goes to the usage ledger, whether the answer is used or not.
  const metered = meterModel(model);
  try {
    const { result, dropped } = await runHarness(metered.model, job.input, new Set(job.knownIds), time.clock());
    if (dropped.length > 0) logger.info("feed enhancement dropped parts of the answer", { userId, dropped });
    const saved = await db.feedEnhancement.updateMany({
      where: { userId, leaseToken: token },
      data: {
        inputHash: job.hash,
        result: result as object,
        modelCalls: { increment: 1 },
        failures: 0,
        retryAfter: null,
      },
    });
    if (saved.count === 0) return "superseded";
    await publish(db, "feed.changed", { userId, reason: "enhanced" });
    return "enhanced";
  } catch (error) {
    // Count the spent call and back off; leave inputHash so a request after the backoff retries.
    const failures = (fresh?.failures ?? 0) + 1;
    await db.feedEnhancement
      .updateMany({
        where: { userId, leaseToken: token },
        data: {
          modelCalls: { increment: 1 },
          failures,
          retryAfter: new Date(time.requestedAt.getTime() + backoffMs(failures)),
        },
      })
      .catch(() => {});
    throw error;
  } finally {
    await recordModelUsage(db, { userId, kind: "enhancement", spend: metered.spent() }).catch((error: unknown) =>
      logger.error("feed enhancement usage could not be recorded", { userId, error }),
    );
  }
}
