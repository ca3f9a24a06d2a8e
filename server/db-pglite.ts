import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { PGliteOptions } from "@electric-sql/pglite";

/**
 * Everything about how the embedded database is opened lives here. Measured on Node 22 (docs/operations.md,
 * "Memory and start-up time"): PGlite's resident memory is driven by (1) initdb — creating a new cluster runs a second,
 * temporary instance that peaks at 650–830 MB and leaves 200–450 MB behind, so we run it in a
 * throw-away child process; (2) shared_buffers, which PGlite touches in full at start (~1.1 MB RSS per
 * MB; default 128 MB); (3) its WASM heap, which never shrinks, so work_mem / maintenance_work_mem stay
 * small. With these, the running app's WASM memory (128 MB reserved) stays ~30 MB resident through five
 * cron passes over 200 trackers (`npm run bench -- memory`). What else the database costs the server
 * process is bounded elsewhere: compiling PGlite's WebAssembly to optimised code leaves 70–90 MB in
 * malloc's heaps unless glibc returns large blocks (MALLOC_MMAP_THRESHOLD_, set by scripts/start.ts for
 * the server), and Prisma's adapter no longer copies PGlite's parser table per statement
 * (db-pglite-prisma.ts). Type-only import of PGlite: prisma.config.ts loads this file and must not pull
 * in the runtime.
 */

/** The PGlite data directory inside DATA_DIR; DATA_DIR itself may hold other app data later. */
export function embeddedDatabaseDir(dataDir: string): string {
  return path.resolve(dataDir, "pglite");
}

/** Postgres settings for a small single-user app; see the header for why each one matters. */
export const PGLITE_SETTINGS: Record<string, string> = {
  shared_buffers: "16MB",
  maintenance_work_mem: "16MB",
  work_mem: "4MB",
  max_connections: "5",
};

/** PGlite's own defaults plus ours: passing `startParams` replaces the defaults entirely. */
export function pgliteStartParams(defaults: readonly string[]): string[] {
  return [...defaults, ...Object.entries(PGLITE_SETTINGS).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
}

/**
 * Constructor options for every PGlite the app opens. `dataDir` undefined → in memory.
 * No extensions are loaded (each costs memory, and pgvector cannot be dropped again once a column uses it).
 */
export function pgliteOptions(dataDir: string | undefined, defaultStartParams: readonly string[]): PGliteOptions {
  return {
    ...(dataDir ? { dataDir } : {}),
    extensions: {},
    startParams: pgliteStartParams(defaultStartParams),
  };
}

/** True once a cluster exists in `dataDir` (initdb has run). */
export function hasCluster(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, "PG_VERSION"));
}

// Runs in the child: create the cluster and exit, taking initdb's memory with it.
const INITDB_CHILD = `
import { PGlite } from "@electric-sql/pglite";
const [dataDir, params] = process.argv.slice(1);
const db = await PGlite.create({ dataDir, startParams: JSON.parse(params) });
await db.close();
`;

/**
 * Creates the cluster in a child process when it does not exist yet, so the server process never
 * carries initdb's peak. Resolution of the PGlite package happens from the project root (cwd).
 */
export async function initClusterInChild(dataDir: string, defaultStartParams: readonly string[]): Promise<void> {
  if (hasCluster(dataDir)) return;
  const params = JSON.stringify(pgliteStartParams(defaultStartParams));
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", INITDB_CHILD, dataDir, params], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0 && hasCluster(dataDir)) resolve();
      else reject(new Error(`Could not create the embedded database in ${dataDir} (exit ${code}): ${stderr.trim()}`));
    });
  });
}
