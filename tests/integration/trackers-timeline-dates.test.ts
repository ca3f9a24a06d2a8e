import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkTimelineDate } from "@/contracts/dates";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { appRouter } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { openApiWorld } from "../helpers/api-world";
import type { TTestDb } from "../helpers/db";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * Impossible calendar dates in the timeline's window (from=2026-02-31) are a clear 400 on both surfaces,
 * instead of being read as 3 March. Real dates, leap days and the Date objects the UI sends still work.
 */

let db: TTestDb;
let me: TSessionUser;
let token: string;
let trackerId: string;

beforeAll(async () => ({ db, me, token, trackerId } = await openApiWorld("dates")));
afterAll(async () => {
  await db?.close();
});

/** GET /api/trpc/tracker.timeline over HTTP, as the browser sends it (superjson envelope). */
async function trpcTimeline(window: Record<string, unknown>) {
  const input = encodeURIComponent(JSON.stringify({ json: { trackerId, ...window } }));
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: new Request(`http://localhost/api/trpc/tracker.timeline?input=${input}`),
    router: appRouter,
    createContext: () => testTrpcContext(db.db, me),
  });
  const body = (await res.json()) as {
    result?: { data: { json: { items: unknown[] } } };
    error?: { json: { message: string; data: { issues?: { path: string; message: string }[] } } };
  };
  return { status: res.status, body };
}

async function restTimeline(query: string) {
  const response = await handleRestRequest(
    new Request(`http://app/api/v1/trackers/${trackerId}/timeline${query}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
    { db: db.db },
  );
  return { status: response.status, body: await response.json() };
}

describe("checkTimelineDate", () => {
  it("names the month's length for an impossible day, and the format for garbage", () => {
    expect(checkTimelineDate("2026-02-31")).toEqual({
      ok: false,
      problem: "is not a calendar date: 2026-02-31 (February 2026 has 28 days)",
    });
    expect(checkTimelineDate("2025-02-29T10:00:00Z")).toMatchObject({ ok: false, problem: /February 2025 has 28/ });
    expect(checkTimelineDate("2026-13-01")).toMatchObject({ ok: false, problem: /no month 13/ });
    expect(checkTimelineDate("2026-04-31")).toMatchObject({ ok: false, problem: /April 2026 has 30 days/ });
    expect(checkTimelineDate("yesterday")).toMatchObject({ ok: false, problem: /must be an ISO 8601 date/ });
    expect(checkTimelineDate("2026-02-28T25:00:00Z")).toMatchObject({ ok: false, problem: /must be an ISO 8601/ });
    expect(checkTimelineDate("2024-02-29")).toEqual({ ok: true, date: new Date("2024-02-29T00:00:00Z") });
    expect(checkTimelineDate("2026-11-01T00:00:00+02:00")).toEqual({
      ok: true,
      date: new Date("2026-10-31T22:00:00Z"),
    });
  });
});

describe("tRPC tracker.timeline", () => {
  it("answers 400 naming the impossible date; accepts real dates (Date objects: refresh-progress.test.ts)", async () => {
    const bad = await trpcTimeline({ from: "2026-02-31" });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.json.data.issues).toEqual([
      { path: "from", message: '"from" is not a calendar date: 2026-02-31 (February 2026 has 28 days).' },
    ]);
    const badTo = await trpcTimeline({ to: "2026-02-30T10:00:00Z" });
    expect(badTo.status).toBe(400);
    expect(badTo.body.error?.json.data.issues?.[0]?.message).toMatch(/"to" is not a calendar date/);

    const leap = await trpcTimeline({ from: "2024-02-29", to: "2026-02-28T23:59:59Z" });
    expect(leap.status).toBe(200);
    expect(leap.body.result?.data.json.items).toEqual([]);
  });
});

describe("REST GET /api/v1/trackers/{id}/timeline", () => {
  it("answers 400 naming the impossible date; accepts real ones", async () => {
    const bad = await restTimeline("?from=2026-02-31");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: "BAD_REQUEST",
      message: '"from" is not a calendar date: 2026-02-31 (February 2026 has 28 days).',
    });
    const badTo = await restTimeline("?to=2026-06-31T00:00:00Z");
    expect(badTo.status).toBe(400);
    expect(badTo.body.error.message).toMatch(/"to" is not a calendar date: .*June 2026 has 30 days/);
    const ok = await restTimeline("?from=2024-02-29&to=2026-02-28T00:00:00Z");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ items: [], nextCursor: null });
  });
});
