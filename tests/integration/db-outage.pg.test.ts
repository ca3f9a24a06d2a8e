import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_UNAVAILABLE_MESSAGE } from "@/contracts/database-unavailable";
import { createOwner, freePort, startApp, stopStartedProcesses, type TApp } from "../helpers/app-process";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";

/**
 * A PostgreSQL outage while the app runs: the app reaches its database through a TCP proxy this test cuts (the
 * listener closed, every live connection destroyed) and restores. While it is cut, tRPC, the REST API, the auth
 * routes and /api/health answer 503 with Retry-After and say the database is the problem; pages fail without a
 * stack. Once it is back the same requests succeed, without restarting the app (the pg pool reconnects).
 */

type TProxy = { port: number; cut: () => Promise<void>; restore: () => Promise<void>; close: () => Promise<void> };

async function startProxy(target: { host: string; port: number }): Promise<TProxy> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const listen = async () => {
    if (server) return;
    const s = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => {
          sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", resolve);
    });
    server = s;
  };
  const cut = async () => {
    const s = server;
    server = undefined;
    const closed = s ? new Promise<void>((resolve) => s.close(() => resolve())) : Promise.resolve();
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await listen();
  return { port, cut, restore: listen, close: cut };
}

const BATCH_INPUT = `batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { json: null }, 1: { json: null } }))}`;

type TAnswer = { status: number; retryAfter: string | null; text: string };

async function answer(res: Response): Promise<TAnswer> {
  return { status: res.status, retryAfter: res.headers.get("retry-after"), text: await res.text() };
}

let pg: TPostgresTestDb;
let proxy: TProxy;
let app: TApp;
const PASSWORD = "hunter2-not-needed-with-trust";

describe.skipIf(!hasPostgres)("a PostgreSQL outage while the app runs", () => {
  beforeAll(async () => {
    pg = await createPostgresTestDb();
    const direct = new URL(pg.url);
    proxy = await startProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(pg.url);
    viaProxy.port = String(proxy.port);
    viaProxy.username = "postgres";
    viaProxy.password = PASSWORD; // trust auth ignores it; it must never appear in an answer
    app = startApp({
      DATABASE_URL: viaProxy.toString(),
      PORT: String(await freePort()),
      AUTH_SECRET: "outage-test-secret-0123456789abcdef0123",
      SCHEDULER: "off",
    });
    await app.waitFor(/\[bellwether\] ready in/, 900_000);
  }, 960_000);

  afterAll(async () => {
    await proxy?.restore(); // a failed test may have left it cut: the app then shuts down as usual
    if (app?.proc.exitCode === null) app.proc.kill("SIGTERM");
    await app?.exited;
    await stopStartedProcesses();
    await proxy?.close();
    await pg?.drop();
  });

  it("answers 503 with Retry-After naming the database while it is down, and recovers when it is back", async () => {
    const { cookie, token } = await createOwner(app);
    const requests = {
      trpc: () => fetch(`${app.url}/api/trpc/apiToken.list`, { headers: { cookie } }),
      trpcBatch: () => fetch(`${app.url}/api/trpc/apiToken.list,user.me?${BATCH_INPUT}`, { headers: { cookie } }),
      rest: () => fetch(`${app.url}/api/v1/trackers`, { headers: { authorization: `Bearer ${token}` } }),
      auth: () => fetch(`${app.url}/api/auth/get-session`, { headers: { cookie } }),
      health: () => fetch(`${app.url}/api/health`),
    };
    const ask = async () => {
      const out: Record<string, TAnswer> = {};
      for (const [name, request] of Object.entries(requests)) out[name] = await answer(await request());
      return out;
    };

    // As the browser asks: a streamed batch, whose status and headers go out before its calls end.
    const streamed = () =>
      fetch(`${app.url}/api/trpc/apiToken.list,user.me?${BATCH_INPUT}`, {
        headers: { cookie, "trpc-accept": "application/jsonl" },
      });

    const before = await ask();
    for (const [name, a] of Object.entries(before)) expect(a.status, `${name} before: ${a.text}`).toBe(200);
    expect(JSON.parse(before.health?.text ?? "")).toMatchObject({
      ok: true,
      database: { kind: "postgres", ok: true },
    });

    // The token routes (Atom feed, unsubscribe): a made-up token is a 404 while the database answers.
    const tokenRoutes = () =>
      Promise.all([
        fetch(`${app.url}/api/notifications/feed/made-up-token`).then(answer),
        fetch(`${app.url}/api/notifications/unsubscribe/made-up-token`, { method: "POST" }).then(answer),
      ]);
    expect((await tokenRoutes()).map((a) => a.status)).toEqual([404, 404]);

    await proxy.cut();
    for (const a of await tokenRoutes()) {
      expect(a.status, a.text).toBe(503);
      expect(a.retryAfter).toMatch(/^[1-9]\d*$/);
    }
    const down = await ask();
    for (const [name, a] of Object.entries(down)) {
      expect(a.status, `${name} while down: ${a.text}`).toBe(503);
      expect(a.retryAfter, name).toMatch(/^[1-9]\d*$/);
      expect(a.text, name).toMatch(/database/i);
      // Never where the database is or how to log in to it, never a stack.
      expect(a.text, name).not.toContain(PASSWORD);
      expect(a.text, name).not.toContain(String(proxy.port));
      expect(a.text, name).not.toMatch(/\bat .+:\d+:\d+/);
    }
    // The streamed batch is 200 by then; each call's error carries the 503 and when to retry.
    const stream = await answer(await streamed());
    expect(stream.status).toBe(200);
    expect(stream.text.match(/"httpStatus":503/g)).toHaveLength(2);
    expect(stream.text.match(/"retryAfterSeconds":5/g)).toHaveLength(2);
    for (const name of ["trpc", "trpcBatch", "rest", "auth"]) {
      expect(down[name]?.text, name).toContain(DATABASE_UNAVAILABLE_MESSAGE);
    }
    expect(JSON.parse(down.rest?.text ?? "")).toEqual({
      error: {
        code: "UNAVAILABLE",
        message: DATABASE_UNAVAILABLE_MESSAGE,
        details: { dependency: "database", retryAfterSeconds: 5 },
      },
    });
    expect(JSON.parse(down.trpc?.text ?? "").error.json.data).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      appCode: "UNAVAILABLE",
      httpStatus: 503,
      details: { dependency: "database" },
    });
    expect(JSON.parse(down.health?.text ?? "")).toMatchObject({
      ok: false,
      database: {
        kind: "postgres",
        ok: false,
        reason: expect.stringMatching(/^(connection refused|no server answers)/),
      },
    });

    // A page: Next's error page (no 503 status for pages), with no stack and the database named by the boundary.
    const page = await answer(await fetch(`${app.url}/`, { headers: { cookie } }));
    expect(page.status).toBeGreaterThanOrEqual(500);
    expect(page.text).not.toContain(PASSWORD);
    expect(page.text).not.toMatch(/\bat .+\.(js|ts):\d+:\d+/);
    expect(page.text).toContain("BELLWETHER_DATABASE_UNAVAILABLE");

    await proxy.restore();
    const after = await ask();
    for (const [name, a] of Object.entries(after)) expect(a.status, `${name} after: ${a.text}`).toBe(200);
    expect((await answer(await streamed())).text).not.toContain('"error"');
    expect(after.health?.retryAfter).toBeNull();
    expect(JSON.parse(after.health?.text ?? "").database).toEqual({ kind: "postgres", ok: true });
    // Writes work again too.
    const created = await fetch(`${app.url}/api/trpc/apiToken.create`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.url, cookie },
      body: JSON.stringify({ json: { name: "after the outage" } }),
    });
    expect(created.status).toBe(200);
    expect(await pg.db.apiToken.count()).toBe(2);
  }, 120_000);
});
