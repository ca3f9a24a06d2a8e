import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPC_MAX_BATCH_SIZE } from "@/contracts/limits";
import { limitRequestBody } from "@/server/api/request-limits";
import { appRouter } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { createTestDb, type TTestDb } from "../helpers/db";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * The tRPC endpoint as the route serves it (body cap, then the fetch handler with the batch cap): oversized bodies
 * are a 413 before they are read, a batch beyond the cap is refused before any procedure runs, and text PostgreSQL
 * cannot store is a 400 on every procedure instead of a 500 from the database.
 */
let db: TTestDb;
let me: TSessionUser;
let contexts = 0;

beforeAll(async () => {
  db = await createTestDb();
  me = await ensureLocalUser(db.db);
});
afterAll(async () => {
  await db?.close();
});

async function serve(req: Request): Promise<Response> {
  const limited = await limitRequestBody(req);
  if (limited instanceof Response) return limited;
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: limited,
    router: appRouter,
    maxBatchSize: TRPC_MAX_BATCH_SIZE,
    createContext: () => {
      contexts++;
      return testTrpcContext(db.db, me);
    },
  });
}

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  new Request(`http://localhost/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

describe("tRPC request limits", () => {
  it("refuses a body over 1 MB with 413 before reading it", async () => {
    const res = await serve(post("settings.updateFeed", JSON.stringify({ json: { memory: "x".repeat(1_100_000) } })));
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it(`refuses a batch of more than ${TRPC_MAX_BATCH_SIZE} calls without running any of them`, async () => {
    const n = TRPC_MAX_BATCH_SIZE + 1;
    const paths = Array.from({ length: n }, () => "tracker.list").join(",");
    const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))));
    const before = contexts;
    const res = await serve(new Request(`http://localhost/api/trpc/${paths}?batch=1&input=${input}`));
    expect(res.status).toBe(400);
    expect(contexts).toBe(before);
    // At the cap it is served.
    const ok = Array.from({ length: TRPC_MAX_BATCH_SIZE }, () => "tracker.list").join(",");
    const okInput = encodeURIComponent(
      JSON.stringify(Object.fromEntries(Array.from({ length: TRPC_MAX_BATCH_SIZE }, (_, i) => [i, {}]))),
    );
    expect((await serve(new Request(`http://localhost/api/trpc/${ok}?batch=1&input=${okInput}`))).status).toBe(200);
  });

  it.each([
    [
      "settings.updateFeed",
      {
        locationName: null,
        latitude: null,
        longitude: null,
        timezone: null,
        calendarUrl: null,
        memory: "a\u0000b",
      },
    ],
    ["apiToken.create", { name: "ci\u0000" }],
    ["setup.openEdit", { trackerId: "x\u0000" }],
    ["setup.lock", { sessionId: "\ud800 lone" }],
  ])("mutation %s refuses NUL / lone surrogates with 400 naming the field", async (procedure, input) => {
    const res = await serve(post(procedure, JSON.stringify({ json: input })));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { json: { message: string; data: { appCode: string } } } };
    expect(body.error.json.data.appCode).toBe("BAD_REQUEST");
    expect(body.error.json.message).toMatch(/NUL characters or lone surrogates/);
  });

  it("a query refuses them too", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { trackerId: "x\u0000" } }));
    const res = await serve(new Request(`http://localhost/api/trpc/tracker.get?input=${input}`));
    expect(res.status).toBe(400);
  });

  it("stored nothing from the refused writes", async () => {
    expect(await db.db.apiToken.count()).toBe(0);
    const settings = await db.db.userSettings.findUnique({ where: { userId: me.id } });
    expect(settings?.memory ?? "").not.toContain("\u0000");
  });
});
