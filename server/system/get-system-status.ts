import packageJson from "@/package.json";
import { getAiStatus, type TAiStatus } from "@/server/ai";
import { describeDatabase } from "@/server/db";
import { getEnv } from "@/server/env";
import { redactUrl } from "./redact-url";

export type TSystemStatus = {
  version: string;
  ai: TAiStatus;
  database: { kind: "embedded" | "postgres"; location: string };
  /** Where the embedded database and other local files live; null when an external database is used. */
  dataDir: string | null;
  runtime: { node: string };
};

/**
 * What the app is running with, safe to show to the user: no keys, no passwords, no query strings.
 * Reads configuration only; it never opens the database.
 */
export function getSystemStatus(): TSystemStatus {
  const ai = getAiStatus();
  const database = describeDatabase();
  const env = getEnv();
  return {
    version: packageJson.version,
    ai, // already display-safe: server/ai builds it from non-secret fields only
    database: {
      kind: database.kind,
      location: database.kind === "postgres" ? redactUrl(database.location) : database.location,
    },
    dataDir: database.kind === "embedded" ? env.DATA_DIR : null,
    runtime: { node: process.version },
  };
}
