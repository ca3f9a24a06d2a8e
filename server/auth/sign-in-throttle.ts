import { createHash } from "node:crypto";
import type { TDb } from "../db";
import type { TEnv } from "../env";

/**
 * The account throttle on email sign-in (docs/accounts.md, "Sign-in throttling"): it counts attempts per email, whatever
 * address they come from, so guessing one account's password is slow even from many addresses. The first
 * `freeAttempts` are free; once that many have failed, each further attempt must wait a delay after the previous
 * one — 15 s, doubling per failure, at most `maxDelaySeconds` — and is refused with 429 until then (refused attempts
 * are not counted, so a stranger cannot stretch the wait). A successful sign-in clears the count; a day without
 * attempts forgets it.
 *
 * Every email is counted the same way, whether or not an account has it, so the throttle tells a stranger nothing
 * about which emails exist. The count lives in the database (SignInThrottle), shared by every app process, keyed by a
 * SHA-256 of the normalized email.
 */

export type TSignInThrottlePolicy = {
  /** Failed attempts before the waits start (SIGN_IN_THROTTLE_AFTER). */
  freeAttempts: number;
  /** The first wait; each further failure doubles it. */
  baseDelaySeconds: number;
  /** The longest wait (SIGN_IN_THROTTLE_MAX_SECONDS). */
  maxDelaySeconds: number;
  /** A count with no attempt for this long starts over. */
  forgetAfterSeconds: number;
};

const BASE_DELAY_SECONDS = 15;
const FORGET_AFTER_SECONDS = 86_400;
/** 2^20 × 15 s is far past any maximum; the cap keeps the arithmetic (here and in SQL) finite. */
const MAX_DOUBLINGS = 20;

export function signInThrottleFromEnv(
  env: Pick<TEnv, "SIGN_IN_THROTTLE_AFTER" | "SIGN_IN_THROTTLE_MAX_SECONDS">,
): TSignInThrottlePolicy {
  return {
    freeAttempts: env.SIGN_IN_THROTTLE_AFTER,
    baseDelaySeconds: BASE_DELAY_SECONDS,
    maxDelaySeconds: env.SIGN_IN_THROTTLE_MAX_SECONDS,
    forgetAfterSeconds: FORGET_AFTER_SECONDS,
  };
}

/** Trimmed and lower-cased (as accounts store emails), then hashed: the table never holds an address. */
export function signInThrottleKey(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
}

/** The wait after `failures` counted attempts, in seconds (0 while they are within the free ones). */
export function signInDelaySeconds(failures: number, policy: TSignInThrottlePolicy): number {
  if (failures < policy.freeAttempts) return 0;
  const doublings = Math.min(failures - policy.freeAttempts, MAX_DOUBLINGS);
  return Math.min(policy.baseDelaySeconds * 2 ** doublings, policy.maxDelaySeconds);
}

export type TSignInClaim = { allowed: true; failures: number } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one sign-in attempt for `email` before its password is checked, or refuses it while the email must wait.
 * One atomic statement decides (the insert starts the count at 1; a conflict adds 1 only when no wait is pending,
 * or starts over after a day; RETURNING answers; no row back means refused), so parallel guesses on any number of
 * processes get exactly the free attempts and no more. Counting first is what makes that hold; a success then
 * clears the count (clearSignInAttempts).
 */
export async function claimSignInAttempt(
  db: TDb,
  input: { email: string; policy: TSignInThrottlePolicy; now?: Date },
): Promise<TSignInClaim> {
  const { policy } = input;
  const now = input.now ?? new Date();
  const key = signInThrottleKey(input.email);
  const forgetBefore = new Date(now.getTime() - policy.forgetAfterSeconds * 1000);
  // The pending wait, as signInDelaySeconds computes it, over the stored count.
  const rows = await db.$queryRaw<{ failures: number }[]>`
    INSERT INTO "SignInThrottle" AS t ("emailHash", "failures", "lastAttemptAt")
    VALUES (${key}, 1, ${now})
    ON CONFLICT ("emailHash") DO UPDATE SET
      "failures" = CASE WHEN t."lastAttemptAt" < ${forgetBefore} THEN 1 ELSE t."failures" + 1 END,
      "lastAttemptAt" = ${now}
    WHERE t."failures" < ${policy.freeAttempts}::int
       OR t."lastAttemptAt" < ${forgetBefore}
       OR t."lastAttemptAt" + make_interval(secs => LEAST(
            ${policy.baseDelaySeconds}::float8 * power(2::float8, LEAST(t."failures" - ${policy.freeAttempts}::int, ${MAX_DOUBLINGS}::int)::float8),
            ${policy.maxDelaySeconds}::float8)) <= ${now}
    RETURNING "failures"`;
  const failures = rows[0]?.failures;
  if (failures !== undefined) {
    if (Number(failures) === 1) {
      // A new count: rows nobody tried for a day are dead weight (and strangers can make many), so go now.
      await db.signInThrottle.deleteMany({ where: { lastAttemptAt: { lt: forgetBefore } } });
    }
    return { allowed: true, failures: Number(failures) };
  }
  const row = await db.signInThrottle.findUnique({ where: { emailHash: key } });
  const waitUntil = row ? row.lastAttemptAt.getTime() + signInDelaySeconds(row.failures, policy) * 1000 : 0;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((waitUntil - now.getTime()) / 1000)) };
}

/** A successful sign-in: the email's count starts over. */
export async function clearSignInAttempts(db: TDb, input: { email: string }): Promise<void> {
  await db.signInThrottle.deleteMany({ where: { emailHash: signInThrottleKey(input.email) } });
}

/** "Too many failed sign-ins for this email. Try again in 45 s." (minutes from 2 min on). */
export function signInThrottledMessage(retryAfterSeconds: number): string {
  const wait = retryAfterSeconds < 120 ? `${retryAfterSeconds} s` : `${Math.ceil(retryAfterSeconds / 60)} min`;
  return `Too many failed sign-ins for this email. Try again in ${wait}.`;
}
