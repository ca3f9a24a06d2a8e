import type { TDb } from "../db";
import { getEnv, type TEnv } from "../env";
import { AppError } from "../errors";

/** The costly endpoints that are rate-limited per person (docs/design.md §9). */
export type TRateLimitAction = "setup-turn" | "refresh" | "replay";
/** At most `limit` calls per fixed window of `windowSeconds`; limit 0 = no limit. */
export type TRateLimit = { limit: number; windowSeconds: number };
export type TRateLimits = Record<TRateLimitAction, TRateLimit>;

export function rateLimitsFromEnv(
  env: Pick<
    TEnv,
    | "RATE_LIMIT_SETUP_TURNS"
    | "RATE_LIMIT_SETUP_WINDOW_SECONDS"
    | "RATE_LIMIT_REFRESHES"
    | "RATE_LIMIT_REFRESH_WINDOW_SECONDS"
    | "RATE_LIMIT_REPLAYS"
    | "RATE_LIMIT_REPLAY_WINDOW_SECONDS"
  > = getEnv(),
): TRateLimits {
  return {
    "setup-turn": { limit: env.RATE_LIMIT_SETUP_TURNS, windowSeconds: env.RATE_LIMIT_SETUP_WINDOW_SECONDS },
    refresh: { limit: env.RATE_LIMIT_REFRESHES, windowSeconds: env.RATE_LIMIT_REFRESH_WINDOW_SECONDS },
    replay: { limit: env.RATE_LIMIT_REPLAYS, windowSeconds: env.RATE_LIMIT_REPLAY_WINDOW_SECONDS },
  };
}

export type TRateLimitAnswer = { allowed: true; count: number } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one call of `action` for `userId` in the current fixed window and says whether it is allowed. One atomic
 * statement does it — the insert starts the window's row at 1, a conflict adds 1 only while the count is below the
 * limit, and RETURNING answers; no row back means the window is full — so N parallel calls on any number of
 * instances allow exactly `limit` (the row lock orders them). Windows are aligned to multiples of their length;
 * when a person's new window starts, their older rows for the action are removed, so the table stays small.
 */
export async function consumeRateLimit(
  db: TDb,
  input: { userId: string; action: TRateLimitAction; limit: number; windowSeconds: number; now?: Date },
): Promise<TRateLimitAnswer> {
  if (input.limit <= 0) return { allowed: true, count: 0 };
  const nowMs = (input.now ?? new Date()).getTime();
  const windowMs = input.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(nowMs / windowMs) * windowMs);
  const windowEnd = new Date(windowStart.getTime() + windowMs);
  const rows = await db.$queryRaw<{ count: number }[]>`
    INSERT INTO "RateLimitCounter" ("userId", "action", "windowStart", "count", "windowEnd")
    VALUES (${input.userId}, ${input.action}, ${windowStart}, 1, ${windowEnd})
    ON CONFLICT ("userId", "action", "windowStart")
    DO UPDATE SET "count" = "RateLimitCounter"."count" + 1
    WHERE "RateLimitCounter"."count" < ${input.limit}
    RETURNING "count"`;
  const count = rows[0]?.count;
  if (count === undefined) {
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd.getTime() - nowMs) / 1000)) };
  }
  if (Number(count) === 1) {
    await db.rateLimitCounter.deleteMany({
      where: { userId: input.userId, action: input.action, windowStart: { lt: windowStart } },
    });
  }
  return { allowed: true, count: Number(count) };
}

const REFUSED: Record<TRateLimitAction, string> = {
  refresh: "Too many refreshes",
  "setup-turn": "Too many setup messages",
  replay: "Too many replays",
};

/**
 * The check costly endpoints make before their work: counts the call, or throws TOO_MANY_REQUESTS
 * ("Too many refreshes — try again in 12 s.") with details.retryAfterSeconds, which the HTTP surfaces send as
 * `Retry-After` (server/errors.ts) and tRPC clients read from the error's data.
 */
export async function enforceRateLimit(
  db: TDb,
  input: { userId: string; action: TRateLimitAction; now?: Date; limits?: TRateLimits },
): Promise<void> {
  const { limit, windowSeconds } = (input.limits ?? rateLimitsFromEnv())[input.action];
  const answer = await consumeRateLimit(db, { ...input, limit, windowSeconds });
  if (answer.allowed) return;
  throw new AppError("TOO_MANY_REQUESTS", `${REFUSED[input.action]} — try again in ${answer.retryAfterSeconds} s.`, {
    details: { retryAfterSeconds: answer.retryAfterSeconds, limit, windowSeconds, action: input.action },
  });
}
