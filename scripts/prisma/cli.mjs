#!/usr/bin/env node
// Runs any Prisma CLI command offline: the native schema engine cannot be downloaded here, so
// PRISMA_SCHEMA_ENGINE_BINARY points at the project's wasm stand-in. Usage:
//   node scripts/prisma/cli.mjs migrate deploy           (npm run db:migrate)
//   node scripts/prisma/cli.mjs migrate dev --name x     (npm run db:migrate:dev -- --name x)
//   node scripts/prisma/cli.mjs migrate status | generate | validate | format | migrate diff …
// The database comes from prisma.config.ts: DATABASE_URL, else the embedded PGlite under DATA_DIR.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const shim = path.join(here, "schema-engine-wasm-shim.mjs");

export function prismaEnv(base = process.env) {
  // The CLI executes the engine file directly, so it must be executable (a zip download or an
  // unusual checkout may drop the bit).
  const mode = fs.statSync(shim).mode;
  if ((mode & 0o111) === 0) fs.chmodSync(shim, mode | 0o755);
  return {
    ...base,
    PRISMA_SCHEMA_ENGINE_BINARY: shim,
    // No update checks or telemetry: there is no network and they would only add delay.
    CHECKPOINT_DISABLE: "1",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    // The shim's `#!/usr/bin/env node` must find the Node running this script (Node 24 via npm scripts).
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${base.PATH ?? ""}`,
  };
}

export function runPrisma(args) {
  const cliEntry = createRequire(path.join(root, "package.json")).resolve("prisma/build/index.js");
  const result = spawnSync(process.execPath, [cliEntry, ...args], { cwd: root, stdio: "inherit", env: prismaEnv() });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(runPrisma(process.argv.slice(2)));
}
