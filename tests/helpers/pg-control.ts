import fs from "node:fs";
import path from "node:path";

/**
 * The cluster state PostgreSQL records in `global/pg_control` (ControlFileData.state, an int32 after the
 * 8-byte system identifier and two uint32 version fields). A clean shutdown — PGlite's close() runs the
 * shutdown checkpoint — leaves `shut down`; a process that died with the database open leaves
 * `in production`, and the next open must run crash recovery (replay the WAL). PGlite prints nothing
 * about recovery, so this file is how a test tells the two apart.
 */
const DB_STATES = [
  "starting up",
  "shut down",
  "shut down in recovery",
  "shutting down",
  "in crash recovery",
  "in archive recovery",
  "in production",
] as const;
export type TClusterState = (typeof DB_STATES)[number];

export function readClusterState(pgliteDir: string): TClusterState {
  const control = fs.readFileSync(path.join(pgliteDir, "global", "pg_control"));
  const state = DB_STATES[control.readInt32LE(16)];
  if (state === undefined) throw new Error(`unexpected pg_control state ${control.readInt32LE(16)} in ${pgliteDir}`);
  return state;
}
