import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";

/** `npm run worker` as a process: refuses without PostgreSQL, runs with it, and stops cleanly on SIGTERM. */

function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/worker.ts"], {
    cwd: process.cwd(),
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => {
    output += String(d);
  });
  child.stderr.on("data", (d) => {
    output += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe("npm run worker", () => {
  it("refuses without DATABASE_URL, saying why", async () => {
    const worker = startWorker({ DATABASE_URL: "" });
    expect(await worker.exited).toBe(1);
    expect(worker.output()).toMatch(/needs DATABASE_URL/);
  }, 30_000);
});

describe.skipIf(!hasPostgres)("npm run worker on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  beforeAll(async () => {
    pg = await createPostgresTestDb();
  });
  afterAll(async () => {
    await pg?.drop();
  });

  it("polls, and on SIGTERM finishes and exits 0", async () => {
    const worker = startWorker({ DATABASE_URL: pg.url, WORKER_POLL_MS: "200" });
    for (let i = 0; i < 300 && !worker.output().includes("started"); i++) await new Promise((r) => setTimeout(r, 100));
    expect(worker.output()).toContain("[worker] started");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toMatch(/SIGTERM: finishing refreshes in flight/);
    expect(worker.output()).toMatch(/stopped after \d+ pass\(es\)/);
  }, 60_000);
});
