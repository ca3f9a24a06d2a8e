#!/usr/bin/env node
// Stand-in for Prisma's native `schema-engine` binary, which `npm install` cannot download on
// machines without access to Prisma's binary host (these, air-gapped CI, ...). scripts/prisma/cli.mjs
// and generate.mjs point PRISMA_SCHEMA_ENGINE_BINARY at this file. It speaks the binary's
// line-delimited JSON-RPC on stdio and forwards every call to @prisma/schema-engine-wasm (same JSON
// types), with a JS driver adapter doing the database I/O: `postgresql://…` via @prisma/adapter-pg,
// `pglite:<dir>` (or `pglite:` = in memory) via pglite-prisma-adapter.
import fs from "node:fs";
import { createRequire } from "node:module";
import readline from "node:readline";
import { lockPgliteDir } from "./pglite-lock.mjs";
import { loadEngineModule, makeAdapterFactory, pgConfigFromUrl, pgliteDirFromUrl } from "./wasm-engine-lib.mjs";

const require = createRequire(import.meta.url);
// Must match the engine hash of the installed `prisma` CLI (prisma 7.10.0).
const ENGINE_HASH = "0edf323efd1d98336f3f0a68684b56f689b900d3";
const argv = process.argv.slice(2);
if (argv.includes("--version") || argv.includes("-V")) {
  console.log(`schema-engine-cli ${ENGINE_HASH} (wasm shim)`);
  process.exit(0);
}

const datamodels = [];
let datasource = null;
let cliCmd = null;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--datamodels" || a === "-d") datamodels.push(argv[++i]);
  else if (a === "--datasource") datasource = JSON.parse(argv[++i]);
  else if (a === "cli") cliCmd = argv[++i];
  else if (a === "--enabled-preview-features" || a === "--extension-types") i++;
}

const logErr = (message, error_code) =>
  process.stderr.write(
    `${JSON.stringify({ level: "ERROR", target: "schema_engine::logger", fields: { message, error_code } })}\n`,
  );

// `schema-engine --datasource {...} cli <can-connect-to-database|create-database|drop-database>`
if (cliCmd) {
  // The CLI drops the first stderr line before parsing JSON log lines.
  process.stderr.write(
    `${JSON.stringify({ level: "INFO", target: "schema_engine::logger", fields: { message: "wasm shim" } })}\n`,
  );
  if (datasource.url.startsWith("pglite:")) process.exit(0); // PGlite directories are created on open
  const pg = require("pg");
  const cfg = pgConfigFromUrl(datasource.url);
  const run = async (database, sql) => {
    const c = new pg.Client({ ...cfg, database });
    await c.connect();
    try {
      if (sql) await c.query(sql);
    } finally {
      await c.end();
    }
  };
  try {
    if (cliCmd === "can-connect-to-database") await run(cfg.database);
    else if (cliCmd === "create-database") await run("postgres", `CREATE DATABASE "${cfg.database}"`);
    else if (cliCmd === "drop-database") await run("postgres", `DROP DATABASE "${cfg.database}"`);
    else throw new Error(`unsupported cli command ${cliCmd}`);
    process.stdout.write(`${JSON.stringify({ level: "INFO", fields: { message: "ok" } })}\n`);
    process.exit(0);
  } catch (e) {
    const code = e.code === "3D000" ? "P1003" : e.code === "ECONNREFUSED" ? "P1001" : undefined;
    logErr(e.message, code);
    process.exit(1);
  }
}

if (!datasource?.url) {
  logErr("wasm shim: --datasource with a url is required (set datasource.url in prisma.config.ts)");
  process.exit(1);
}

// Startup failures (embedded database locked, unreachable server…) are answered per request, like the
// native engine does: an engine that just exits makes the CLI print nothing and exit 0.
let engine = null;
let close = async () => {};
let startupError = null;
try {
  if (datasource.url.startsWith("pglite:")) {
    const dir = pgliteDirFromUrl(datasource.url);
    if (dir) lockPgliteDir(dir, "prisma schema engine");
  }
  const bg = await loadEngineModule();
  const adapter = await makeAdapterFactory(datasource.url, { shadowUrl: datasource.shadowDatabaseUrl });
  close = adapter.close;
  const dm = datamodels.map((p) => [p, fs.readFileSync(p, "utf8")]);
  engine = await bg.SchemaEngine.new({ datamodels: dm.length ? dm : undefined }, () => {}, adapter.factory);
} catch (e) {
  startupError = e;
}

const send = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
let printId = 1_000_000;
const methodMap = { getDatabaseVersion: "version" };
let queue = Promise.resolve();

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.method === undefined) return; // ACK of our `print` requests
  queue = queue.then(async () => {
    const m = methodMap[msg.method] ?? msg.method;
    try {
      if (startupError) throw startupError;
      if (typeof engine[m] !== "function") throw new Error(`Method ${msg.method} is not supported by the wasm shim`);
      let result = await callWithShadowRetry(m, msg.params ?? undefined);
      if (m === "diff" && result) {
        if (result.stdout)
          send({
            jsonrpc: "2.0",
            id: printId++,
            method: "print",
            params: { content: result.stdout.replace(/\n$/, "") },
          });
        result = { exitCode: result.exitCode };
      }
      send({ jsonrpc: "2.0", id: msg.id, result: result ?? null });
    } catch (e) {
      const err = e?.error ?? e; // errors from the adapter registry come wrapped
      send({
        jsonrpc: "2.0",
        id: msg.id,
        error: {
          code: 4466,
          message: "An error happened. Check the data field for details.",
          data: {
            is_panic: false,
            message: String(err?.message ?? err),
            error_code: err?.code ?? undefined,
            meta: err?.meta,
          },
        },
      });
    }
  });
});
// schema-engine-wasm 7.10 keeps the shadow database it set up during `devDiagnostic` and loses it
// once `applyMigrations` applied something; `evaluateDataLoss`/`createMigration` then fail with
// "shadow DB must be provided through an external factory" (so `migrate dev` on a database that
// was behind failed). Running `devDiagnostic` again sets the shadow database up; retry once after it.
async function callWithShadowRetry(method, params) {
  try {
    return await engine[method](params);
  } catch (e) {
    const message = String(e?.message ?? e);
    if (!/shadow DB must be provided through an external factory/.test(message) || !params?.migrationsList) throw e;
    await engine.devDiagnostic({ migrationsList: params.migrationsList, filters: params.filters });
    return await engine[method](params);
  }
}

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await queue;
  try {
    engine?.free();
  } catch {
    // already freed
  }
  await close();
  process.exit(0); // runs the lock release registered on "exit"
}
rl.on("close", stop);
// The CLI ends the engine with SIGTERM rather than closing stdin; close the database cleanly then too.
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
