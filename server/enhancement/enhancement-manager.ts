import { randomUUID } from "node:crypto";
import type { TFeedItem } from "@/contracts/feed-item";
import { getModel, meterModel, type TLanguageModel } from "@/server/ai";
import type { TDb } from "@/server/db";
import { publish } from "@/server/events";
import { logger } from "@/server/logger";
import { getUserSettings } from "@/server/settings/user-settings";
import { recordModelUsage, spentModelBudget } from "@/server/usage";
import { buildHarnessInput, hashHarnessInput } from "./build-input";
import { runHarness } from "./run-harness";
import { type TEnhancementResult, ZEnhancementResultSchema } from "./schema";

export const INACTIVE_AFTER_MS = 2 * 3_600_000;
const LEASE_MS = 120_000;

export type TEnhanceOutcome =
  | "rules"
  | "no_slots"
  | "inactive"
  | "cached"
  | "in_flight"
  | "superseded"
  | "enhanced"
  | "failed"
  /** The person's monthly model-token budget is spent: skipped, no model call (DESIGN §9). */
  | "over_budget";

export type TEnhanceOptions = {
  now?: Date;
  debounceMs?: number;
  /** Tests inject a model; default `getModel("enhancer")` (null → rules mode). */
  model?: TLanguageModel | null;
};

/** The last stored enhancement (merged by the fast path), and the hash it was computed for. */
export async function getCachedEnhancement(
  db: TDb,
  userId: string,
): Promise<{ result: TEnhancementResult | null; inputHash: string | null }> {
  const row = await db.feedEnhancement.findUnique({ where: { userId } });
  const parsed = row?.result ? ZEnhancementResultSchema.safeParse(row.result) : null;
  return { result: parsed?.success ? parsed.data : null, inputHash: row?.inputHash ?? null };
}

// Per-process debounce + single flight; the FeedEnhancement lease makes it single flight across processes.
type TPending = {
  timer: NodeJS.Timeout;
  resolve: (o: TEnhanceOutcome) => void;
  latest: () => Promise<TEnhanceOutcome>;
};
const g = globalThis as {
  __bellwetherEnhance?: { pending: Map<string, TPending>; running: Map<string, Promise<TEnhanceOutcome>> };
};
g.__bellwetherEnhance ??= { pending: new Map(), running: new Map() };
const local = g.__bellwetherEnhance;

/**
 * Slow path: if the input hash changed, run the harness once (debounced, single flight), store the
 * result and notify open pages. Resolves with what happened; never throws.
 */
export function requestEnhancement(
  db: TDb,
  userId: string,
  items: TFeedItem[],
  memory: string,
  opts: TEnhanceOptions = {},
): Promise<TEnhanceOutcome> {
  const debounceMs = opts.debounceMs ?? 0;
  const work = () => enhanceNow(db, userId, items, memory, opts);
  const prev = local.pending.get(userId);
  if (prev) {
    clearTimeout(prev.timer);
    prev.resolve("superseded");
  }
  return new Promise<TEnhanceOutcome>((resolve) => {
    const timer = setTimeout(() => {
      local.pending.delete(userId);
      resolve(singleFlight(userId, work));
    }, debounceMs);
    local.pending.set(userId, { timer, resolve, latest: work });
  });
}

function singleFlight(userId: string, work: () => Promise<TEnhanceOutcome>): Promise<TEnhanceOutcome> {
  const running = local.running.get(userId);
  if (running) return Promise.resolve("in_flight");
  const p = work()
    .catch((error): TEnhanceOutcome => {
      logger.warn("feed enhancement failed", { error: error instanceof Error ? error.message : String(error) });
      return "failed";
    })
    .finally(() => local.running.delete(userId));
  local.running.set(userId, p);
  return p;
}

async function enhanceNow(
  db: TDb,
  userId: string,
  items: TFeedItem[],
  memory: string,
  opts: TEnhanceOptions,
): Promise<TEnhanceOutcome> {
  const now = opts.now ?? new Date();
  const model = opts.model === undefined ? getModel("enhancer") : opts.model;
  if (!model) return "rules";
  const input = buildHarnessInput(
    items.filter((i) => !i.synthetic),
    memory,
  );
  if (input.items.length === 0) return "no_slots";
  const settings = await getUserSettings(db, userId);
  if (!settings.lastActiveAt || now.getTime() - settings.lastActiveAt.getTime() > INACTIVE_AFTER_MS) return "inactive";
  const hash = hashHarnessInput(input);

  await db.feedEnhancement.upsert({ where: { userId }, create: { userId }, update: {} });
  const row = await db.feedEnhancement.findUnique({ where: { userId } });
  if (row?.inputHash === hash) return "cached";
  // Budget spent → the feed keeps its last enhancement (or none) and its rule-based text; no model call.
  if (await spentModelBudget(db, { userId, now })) return "over_budget";

  // Cross-process single flight: claim the lease with a conditional update.
  const token = randomUUID();
  const claimed = await db.feedEnhancement.updateMany({
    where: { userId, OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lt: now } }] },
    data: { leaseToken: token, leaseExpiresAt: new Date(now.getTime() + LEASE_MS) },
  });
  // Another process is enhancing: its feed event makes open pages reload, and that load asks again with the
  // newest input, so nothing needs remembering here.
  if (claimed.count === 0) return "in_flight";
  // Every call and token goes to the usage ledger, whether the answer is used or not.
  const metered = meterModel(model);
  try {
    // Someone may have finished this exact input between our read and the claim.
    const fresh = await db.feedEnhancement.findUnique({ where: { userId } });
    if (fresh?.inputHash === hash) return "cached";
    const knownIds = new Set(items.map((i) => i.id));
    const { result, dropped } = await runHarness(metered.model, input, knownIds, now);
    if (dropped.length > 0) logger.info("feed enhancement dropped parts of the answer", { userId, dropped });
    const saved = await db.feedEnhancement.updateMany({
      where: { userId, leaseToken: token },
      data: {
        inputHash: hash,
        result: result as object,
        modelCalls: { increment: 1 },
        leaseToken: null,
        leaseExpiresAt: null,
      },
    });
    if (saved.count === 0) return "superseded";
    await publish(db, "feed.changed", { userId, reason: "enhanced" });
    return "enhanced";
  } catch (error) {
    // Count the spent call; leave inputHash so the next refresh retries.
    await db.feedEnhancement
      .updateMany({
        where: { userId, leaseToken: token },
        data: { leaseToken: null, leaseExpiresAt: null, modelCalls: { increment: 1 } },
      })
      .catch(() => {});
    throw error;
  } finally {
    await db.feedEnhancement
      .updateMany({ where: { userId, leaseToken: token }, data: { leaseToken: null, leaseExpiresAt: null } })
      .catch(() => {});
    await recordModelUsage(db, { userId, kind: "enhancement", spend: metered.spent() }).catch((error: unknown) =>
      logger.error("feed enhancement usage could not be recorded", { userId, error }),
    );
  }
}
