import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TAuth } from "@/server/auth";
import {
  claimSignInAttempt,
  clearSignInAttempts,
  signInDelaySeconds,
  signInThrottleFromEnv,
  signInThrottleKey,
} from "@/server/auth/sign-in-throttle";
import { authRequest, createTestAuth } from "../helpers/auth";
import { createTestDb, type TTestDb, truncateAll } from "../helpers/db";

/**
 * The per-email sign-in throttle (server/auth/sign-in-throttle.ts) over a migrated PGlite: the domain with a moved
 * clock, then better-auth's real sign-in handler with the plugin in it. Addresses play no part here; the started
 * server's test (sign-in-throttle-server.test.ts) sends the attempts from many.
 */
let t: TTestDb;
let auth: TAuth;
const policy = signInThrottleFromEnv({ SIGN_IN_THROTTLE_AFTER: 5, SIGN_IN_THROTTLE_MAX_SECONDS: 900 });
const OWNER = { name: "Olive", email: "olive@example.com", password: "correct horse battery" };
const T0 = new Date("2026-12-06T12:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

beforeAll(async () => {
  t = await createTestDb();
  auth = createTestAuth(t.db);
});
afterAll(async () => t.close());
beforeEach(async () => truncateAll(t.db));

const claim = (email: string, now: Date) => claimSignInAttempt(t.db, { email, policy, now });

describe("claimSignInAttempt", () => {
  it("allows 5 attempts, then one per wait after the last: 15 s doubling up to 900 s", async () => {
    for (let i = 1; i <= 5; i++) expect(await claim(OWNER.email, T0)).toEqual({ allowed: true, failures: i });
    let now = 0;
    const waits: number[] = [];
    for (let failures = 5; failures < 13; failures++) {
      const refused = await claim(OWNER.email, at(now));
      if (refused.allowed) throw new Error(`attempt ${failures + 1} was allowed at once`);
      waits.push(refused.retryAfterSeconds);
      // One second early is still refused (and not counted), on time is allowed.
      expect(await claim(OWNER.email, at(now + refused.retryAfterSeconds - 1))).toMatchObject({ allowed: false });
      now += refused.retryAfterSeconds;
      expect(await claim(OWNER.email, at(now))).toEqual({ allowed: true, failures: failures + 1 });
    }
    expect(waits).toEqual([15, 30, 60, 120, 240, 480, 900, 900]);
    expect(signInDelaySeconds(1_000_000, policy)).toBe(900);
  });

  it("counts an email however it is typed, under a hash, and every email alike, whether or not an account has it", async () => {
    for (const email of [
      "Olive@Example.com",
      " olive@example.com",
      "OLIVE@EXAMPLE.COM",
      "olive@example.com",
      "o@x.y",
    ]) {
      await claim(email, T0);
    }
    const rows = await t.db.signInThrottle.findMany({ orderBy: { failures: "desc" } });
    expect(rows.map((r) => [r.emailHash, r.failures])).toEqual([
      [signInThrottleKey(OWNER.email), 4],
      [signInThrottleKey("o@x.y"), 1],
    ]);
    expect(JSON.stringify(rows)).not.toContain("olive");
    expect(await claim("OLIVE@example.com", T0)).toEqual({ allowed: true, failures: 5 });
    expect(await claim(OWNER.email, T0)).toEqual({ allowed: false, retryAfterSeconds: 15 });
  });

  it("starts over after a success (clearSignInAttempts) and after a day without attempts, pruning day-old rows", async () => {
    for (let i = 0; i < 5; i++) await claim(OWNER.email, T0);
    await clearSignInAttempts(t.db, { email: "Olive@Example.com" });
    expect(await claim(OWNER.email, at(1))).toEqual({ allowed: true, failures: 1 });

    for (let i = 0; i < 4; i++) await claim(OWNER.email, at(1));
    await claim("stranger@example.com", at(1));
    expect(await claim(OWNER.email, at(2))).toMatchObject({ allowed: false });
    const nextDay = at(86_402);
    expect(await claim(OWNER.email, nextDay)).toEqual({ allowed: true, failures: 1 });
    // A new count removed the stranger's day-old row; the owner's row is the fresh one.
    expect((await t.db.signInThrottle.findMany()).map((r) => r.emailHash)).toEqual([signInThrottleKey(OWNER.email)]);
  });

  it("parallel attempts get exactly the free ones", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => claim(OWNER.email, T0)));
    expect(answers.filter((a) => a.allowed)).toHaveLength(5);
  });
});

describe("sign-in through better-auth's handler", () => {
  const signIn = (email: string, password: string) => auth.handler(authRequest("/sign-in/email", { email, password }));
  /** As if `seconds` had passed since every counted attempt. */
  const moveClock = (seconds: number) =>
    t.db
      .$executeRaw`UPDATE "SignInThrottle" SET "lastAttemptAt" = "lastAttemptAt" - make_interval(secs => ${seconds}::float8)`;

  beforeEach(async () => {
    expect((await auth.handler(authRequest("/owner/create", OWNER))).status).toBe(200);
  });

  it("refuses the right password too once an account is throttled, with 429 and Retry-After, until the wait is over", async () => {
    for (let i = 0; i < 5; i++) expect((await signIn(OWNER.email, `wrong guess ${i}`)).status).toBe(401);
    const refused = await signIn(OWNER.email, "wrong guess 6");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("15");
    expect(await refused.json()).toEqual({
      code: "SIGN_IN_THROTTLED",
      message: "Too many failed sign-ins for this email. Try again in 15 s.",
    });
    const right = await signIn(OWNER.email, OWNER.password);
    expect(right.status).toBe(429);
    expect(right.headers.getSetCookie().some((c) => c.includes("session_token="))).toBe(false);

    await moveClock(15);
    expect((await signIn(OWNER.email, OWNER.password)).status).toBe(200);
    // The success cleared the count: five more wrong guesses are plain 401s again.
    expect(await t.db.signInThrottle.count()).toBe(0);
    for (let i = 0; i < 5; i++) expect((await signIn(OWNER.email, `wrong again ${i}`)).status).toBe(401);
    expect((await signIn(OWNER.email, OWNER.password)).status).toBe(429);
  });

  it("answers an unknown email exactly as it answers the owner's", async () => {
    const trace = async (email: string) => {
      const answers: string[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await signIn(email, `wrong guess ${i}`);
        answers.push(`${res.status} ${res.headers.get("retry-after")} ${await res.text()}`);
      }
      return answers;
    };
    const known = await trace(OWNER.email);
    const unknown = await trace("nobody@example.com");
    expect(unknown).toEqual(known);
    expect(known.map((a) => a.split(" ")[0])).toEqual(["401", "401", "401", "401", "401", "429", "429"]);
  });
});
