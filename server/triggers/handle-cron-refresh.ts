import { timingSafeEqual } from "node:crypto";
import { getDb, type TDb } from "../db";
import { detachedDefer, type TDefer } from "../defer";
import { getEnv } from "../env";
import { AppError, toHttpError } from "../errors";
import { enhanceAfterPass, type TBackgroundOptions } from "../feed/background";
import type { TRefreshOptions } from "../intelligence/refresh";
import { shutdownSignal } from "../lifecycle/in-flight-work";
import { logger } from "../logger";
import { runDueRefreshes } from "./run-due-refreshes";
import { runMaintenance } from "./run-maintenance";
import { recordCronPass } from "./scheduler-heartbeat";

export type TCronDeps = {
  db?: TDb;
  secret?: string | undefined;
  budgetMs?: number;
  concurrency?: number;
  refreshOptions?: Omit<TRefreshOptions, "trigger" | "idempotencyKey">;
  /**
   * Where the background enhancement after the pass runs: the route passes Next's `after()` (a serverless
   * function lives until it settles); the default runs it detached and tracked (server/defer.ts).
   */
  defer?: TDefer;
  /** The clock of the claims and the background enhancement (tests inject one). */
  now?: () => Date;
  onEnhanced?: TBackgroundOptions["onEnhanced"];
};

function reply(body: unknown, status: number): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET/POST /api/cron/refresh: `Authorization: Bearer $CRON_SECRET` (what Vercel Cron sends), then one
 * pass of the claim loop within the budget; answers with its summary.
 */
export async function handleCronRefresh(request: Request, deps: TCronDeps = {}): Promise<Response> {
  const env = getEnv();
  const secret = "secret" in deps ? deps.secret : env.CRON_SECRET;
  try {
    if (!secret) {
      throw new AppError(
        "UNAVAILABLE",
        "Scheduled refresh is disabled: set CRON_SECRET (and send it as `Authorization: Bearer <secret>`).",
      );
    }
    const match = request.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i);
    if (!match?.[1] || !sameSecret(match[1], secret)) {
      throw new AppError("UNAUTHORIZED", "Missing or wrong `Authorization: Bearer <CRON_SECRET>`.");
    }
    const db = deps.db ?? (await getDb());
    const changed = new Set<string>();
    const startedAt = deps.now?.() ?? new Date();
    const summary = await runDueRefreshes(db, {
      trigger: "cron",
      budgetMs: deps.budgetMs ?? env.REFRESH_BUDGET_MS,
      concurrency: deps.concurrency ?? env.REFRESH_CONCURRENCY,
      // A graceful shutdown stops the pass from starting more refreshes (those in flight finish).
      signal: shutdownSignal(),
      ...(deps.refreshOptions ? { refreshOptions: deps.refreshOptions } : {}),
      ...(deps.now ? { now: deps.now } : {}),
      onChange: ({ userId }) => changed.add(userId),
    });
    // The cron route's heartbeat: /system and the tracker page see that something keeps watch.
    await recordCronPass(db, { startedAt, durationMs: summary.durationMs, claimed: summary.claimed }).catch(
      (error: unknown) => logger.warn("recording the cron pass failed", { error }),
    );
    // Retention and stale drafts (hourly across all processes), then the pass's notifications, sent
    // before the answer: a serverless function may be frozen once it has answered. Never throws.
    await runMaintenance(db, deps.now ? { now: deps.now() } : {});
    // The harness reacts to context changes, not only to page loads (docs/design.md §6): owners of changed trackers and,
    // every 15 minutes, active people whose forecast or calendar may have moved. After the answer.
    (deps.defer ?? detachedDefer)(() =>
      enhanceAfterPass(db, {
        changedUserIds: changed,
        ...(deps.now ? { now: deps.now } : {}),
        ...(deps.onEnhanced ? { onEnhanced: deps.onEnhanced } : {}),
      }),
    );
    return reply({ ok: true, ...summary }, 200);
  } catch (error) {
    const { status, body } = toHttpError(error);
    if (status >= 500 && status !== 503) logger.error("cron refresh failed", { error });
    return reply(body, status);
  }
}
