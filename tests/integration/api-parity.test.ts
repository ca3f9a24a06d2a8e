import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { appRouter } from "@/server/api/root";
import type { TSessionUser } from "@/server/api/session-user";
import { openApiWorld } from "../helpers/api-world";
import type { TTestDb } from "../helpers/db";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * REST (/api/v1) and tRPC validate with the same contracts and map errors through the same table, so the same
 * bad input gets the same code and status on both surfaces. One table, both transports, real HTTP handlers.
 */

let db: TTestDb;
let me: TSessionUser;
let token: string;
let trackerId: string;

beforeAll(async () => ({ db, me, token, trackerId } = await openApiWorld("parity")));
afterAll(async () => {
  await db?.close();
});

type TCase = {
  name: string;
  trpc: { procedure: string; type: "query" | "mutation"; input: Record<string, unknown> };
  rest: { method: string; path: string; query?: string; body?: unknown };
  code: string;
  status: number;
};

/** `$ID` in a case stands for the test's own tracker. */
const ID = "$ID";
const CASES: TCase[] = [
  {
    name: "impossible date",
    trpc: { procedure: "tracker.timeline", type: "query", input: { trackerId: ID, from: "2026-02-31" } },
    rest: { method: "GET", path: `/trackers/${ID}/timeline`, query: "?from=2026-02-31" },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "window backwards",
    trpc: {
      procedure: "tracker.timeline",
      type: "query",
      input: { trackerId: ID, from: "2026-03-01", to: "2026-01-01" },
    },
    rest: { method: "GET", path: `/trackers/${ID}/timeline`, query: "?from=2026-03-01&to=2026-01-01" },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "limit out of range",
    trpc: { procedure: "tracker.runs", type: "query", input: { trackerId: ID, limit: 0 } },
    rest: { method: "GET", path: `/trackers/${ID}/runs`, query: "?limit=0" },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "unknown status filter",
    trpc: { procedure: "tracker.list", type: "query", input: { status: "bogus" } },
    rest: { method: "GET", path: "/trackers", query: "?status=bogus" },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "schedule not offered",
    trpc: { procedure: "tracker.setSchedule", type: "mutation", input: { trackerId: ID, scheduleMinutes: 7 } },
    rest: { method: "PUT", path: `/trackers/${ID}/schedule`, body: { scheduleMinutes: 7 } },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "unknown status value",
    trpc: { procedure: "tracker.setStatus", type: "mutation", input: { trackerId: ID, status: "sleeping" } },
    rest: { method: "PUT", path: `/trackers/${ID}/status`, body: { status: "sleeping" } },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "NUL in an id",
    trpc: { procedure: "tracker.get", type: "query", input: { trackerId: "a\u0000b" } },
    rest: { method: "GET", path: `/trackers/${encodeURIComponent("a\u0000b")}` },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "unknown tracker",
    trpc: { procedure: "tracker.get", type: "query", input: { trackerId: "no-such-tracker" } },
    rest: { method: "GET", path: "/trackers/no-such-tracker" },
    code: "NOT_FOUND",
    status: 404,
  },
  {
    name: "replay period backwards",
    trpc: {
      procedure: "tracker.replay",
      type: "mutation",
      input: { trackerId: ID, from: "2026-03-01", to: "2026-01-01" },
    },
    rest: { method: "POST", path: `/trackers/${ID}/replay`, body: { from: "2026-03-01", to: "2026-01-01" } },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "replay model budget over the maximum",
    trpc: { procedure: "tracker.replay", type: "mutation", input: { trackerId: ID, modelBudget: 201 } },
    rest: { method: "POST", path: `/trackers/${ID}/replay`, body: { modelBudget: 201 } },
    code: "BAD_REQUEST",
    status: 400,
  },
  {
    name: "replay of an unknown tracker",
    trpc: { procedure: "tracker.replay", type: "mutation", input: { trackerId: "no-such-tracker" } },
    rest: { method: "POST", path: "/trackers/no-such-tracker/replay", body: {} },
    code: "NOT_FOUND",
    status: 404,
  },
  {
    name: "refresh of an unknown tracker",
    trpc: { procedure: "tracker.refresh", type: "mutation", input: { trackerId: "no-such-tracker" } },
    rest: { method: "POST", path: "/trackers/no-such-tracker/refresh" },
    code: "NOT_FOUND",
    status: 404,
  },
];

async function viaTrpc(c: TCase["trpc"]) {
  const json = encodeURIComponent(JSON.stringify({ json: c.input }));
  const req =
    c.type === "query"
      ? new Request(`http://localhost/api/trpc/${c.procedure}?input=${json}`)
      : new Request(`http://localhost/api/trpc/${c.procedure}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ json: c.input }),
        });
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => testTrpcContext(db.db, me),
  });
  const body = (await res.json()) as { error?: { json: { data: { appCode: string } } } };
  return { status: res.status, code: body.error?.json.data.appCode };
}

async function viaRest(c: TCase["rest"]) {
  const res = await handleRestRequest(
    new Request(`http://app/api/v1${c.path}${c.query ?? ""}`, {
      method: c.method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(c.body !== undefined ? { body: JSON.stringify(c.body) } : {}),
    }),
    { db: db.db },
  );
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, code: body.error?.code };
}

describe("REST and tRPC reject the same bad inputs with the same codes", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, raw) => {
    const c = JSON.parse(JSON.stringify(raw).replaceAll(ID, trackerId)) as TCase;
    const [trpc, rest] = await Promise.all([viaTrpc(c.trpc), viaRest(c.rest)]);
    expect({ trpc, rest }).toEqual({
      trpc: { status: c.status, code: c.code },
      rest: { status: c.status, code: c.code },
    });
  });

  it("leaves the tracker untouched by every rejected write", async () => {
    const row = await db.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
    expect(row).toMatchObject({ status: "active", scheduleMinutes: 60 });
  });
});
