import type { TDb } from "../db";
import type { TCte } from "../db-cte";
import { getEnv, type TEnv } from "../env";
import { AppError } from "../errors";
import { Prisma } from "../generated/prisma/client";

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

/** One call of `action` by `userId` to count at `now` against `limit` per `windowSeconds` (limit 0 = no limit). */
export type TRateLimitCount = {
  userId: string;
  action: TRateLimitAction;
  limit: number;
  windowSeconds: number;
  now: Date;
};

/** The fixed window `now` falls in (windows are aligned to multiples of their length) and the wait until it ends. */
export function rateLimitWindow(input: { windowSeconds: number; now: Date }): {
  windowStart: Date;
  windowEnd: Date;
  retryAfterSeconds: number;
} {
  const nowMs = input.now.getTime();
  const windowMs = input.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(nowMs / windowMs) * windowMs);
  const windowEnd = new Date(windowStart.getTime() + windowMs);
  return { windowStart, windowEnd, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd.getTime() - nowMs) / 1000)) };
}

/** The CTE of `rateLimitCountSql` that answers: one row ("count", the call's number in its window) when counted. */
export const RATE_LIMIT_COUNTED = "rate_counted";

/**
 * The counting of one call as sub-statements of a statement (docs/design.md §2: usage owns RateLimitCounter's writes,
 * others compose them), for `consumeRateLimit` and for the manual refresh's one lease statement (leaseAndLoad):
 * - `rate_counted`: the insert starts the window's row at 1, a conflict adds 1 only while the count is below the limit,
 *   and RETURNING answers — no row back means the window is full (or `when` was false: nothing counted). Atomic: N
 *   parallel calls on any number of instances allow exactly `limit` (the row lock orders them);
 * - `rate_pruned`: when this call started a new window (count 1), the person's older rows for the action go, so the
 *   table stays small — in the same statement, so it costs no round trip.
 * `when` (an uncorrelated condition) gates the count, e.g. "the tracker is theirs and this is not a replay". null:
 * limit 0, nothing to count.
 */
export function rateLimitCountSql(input: TRateLimitCount & { when?: Prisma.Sql }): TCte[] | null {
  if (input.limit <= 0) return null;
  const { windowStart, windowEnd } = rateLimitWindow(input);
  return [
    {
      name: RATE_LIMIT_COUNTED,
      sql: Prisma.sql`INSERT INTO "RateLimitCounter" ("userId", "action", "windowStart", "count", "windowEnd")
      SELECT ${input.userId}::text, ${input.action}::text, ${windowStart}, 1, ${windowEnd}
      WHERE ${input.when ?? Prisma.raw("TRUE")}
      ON CONFLICT ("userId", "action", "windowStart")
      DO UPDATE SET "count" = "RateLimitCounter"."count" + 1
      WHERE "RateLimitCounter"."count" < ${input.limit}::int
      RETURNING "count"`,
    },
    {
      name: "rate_pruned",
      sql: Prisma.sql`DELETE FROM "RateLimitCounter"
      WHERE "userId" = ${input.userId} AND "action" = ${input.action} AND "windowStart" < ${windowStart}
        AND EXISTS (SELECT 1 FROM ${Prisma.raw(`"${RATE_LIMIT_COUNTED}"`)} WHERE "count" = 1)`,
    },
  ];
}

/**
 * Counts one call of `action` for `userId` in the current fixed window and says whether it is allowed: ONE atomic
 * statement (`rateLimitCountSql`), the old windows' pruning included.
 */
export async function consumeRateLimit(
  db: TDb,
  input: { userId: string; action: TRateLimitAction; limit: number; windowSeconds: number; now?: Date },
): Promise<TRateLimitAnswer> {
  const now = input.now ?? new Date();
  const ctes = rateLimitCountSql({ ...input, now });
  if (ctes === null) return { allowed: true, count: 0 };
  const list = Prisma.join(ctes.map((cte) => Prisma.sql`${Prisma.raw(`"${cte.name}"`)} AS (${cte.sql})`));
  const rows = await db.$queryRaw<{ count: number }[]>(
    Prisma.sql`WITH ${list} SELECT "count" FROM ${Prisma.raw(`"${RATE_LIMIT_COUNTED}"`)}`,
  );
  const count = rows[0]?.count;
  if (count === undefined) {
    return {
      allowed: false,
      retryAfterSeconds: rateLimitWindow({ windowSeconds: input.windowSeconds, now }).retryAfterSeconds,
    };
  }
  return { allowed: true, count: Number(count) };
}

const REFUSED: Record<TRateLimitAction, string> = {
  refresh: "Too many refreshes",
  "setup-turn": "Too many setup messages",
  replay: "Too many replays",
};

/**
 * TOO_MANY_REQUESTS ("Too many refreshes — try again in 12 s.") with details.retryAfterSeconds, which the HTTP surfaces
 * send as `Retry-After` (server/errors.ts) and tRPC clients read from the error's data.
 */
export function rateLimitRefusal(input: {
  action: TRateLimitAction;
  limit: number;
  windowSeconds: number;
  retryAfterSeconds: number;
}): AppError {
  const { action, limit, windowSeconds, retryAfterSeconds } = input;
  return new AppError("TOO_MANY_REQUESTS", `${REFUSED[action]} — try again in ${retryAfterSeconds} s.`, {
    details: { retryAfterSeconds, limit, windowSeconds, action },
  });
}

/** The check costly endpoints make before their work: counts the call, or throws `rateLimitRefusal`. */
export async function enforceRateLimit(
  db: TDb,
  input: { userId: string; action: TRateLimitAction; now?: Date; limits?: TRateLimits },
): Promise<void> {
  const { limit, windowSeconds } = (input.limits ?? rateLimitsFromEnv())[input.action];
  const answer = await consumeRateLimit(db, { ...input, limit, windowSeconds });
  if (answer.allowed) return;
  throw rateLimitRefusal({ action: input.action, limit, windowSeconds, retryAfterSeconds: answer.retryAfterSeconds });
}
