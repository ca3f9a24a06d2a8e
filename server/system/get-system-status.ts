import packageJson from "@/package.json";
import { getAiStatus, type TAiStatus } from "../ai";
import { describeDatabase } from "../db";
import { getEnv } from "../env";
import { redactUrl } from "./redact-url";

/** What every page's shell needs (the header's AI status, setup's rules-mode notice): nothing about the host. */
export type TSystemStatus = {
  version: string;
  ai: TAiStatus;
};

/**
 * The read-only System page: how this server runs. Where the data lives (database location, data directory) is the
 * owner's business only; another member sees the kind of database and `hiddenFromMembers: true` instead.
 */
export type TSystemDetails = TSystemStatus & {
  database: {
    kind: "embedded" | "postgres";
    /** Redacted connection URL or embedded path; null for members. */
    location: string | null;
  };
  /** Where the embedded database and other local files live; null with an external database, and for members. */
  dataDir: string | null;
  runtime: { node: string; platform: string };
  /** True when paths were left out because the viewer is not the owner. */
  hiddenFromMembers: boolean;
};

/**
 * What the app is running with, safe to show to any signed-in person: no keys, no passwords, no paths.
 * Reads configuration only; it never opens the database.
 */
export function getSystemStatus(): TSystemStatus {
  return {
    version: packageJson.version,
    ai: getAiStatus(), // already display-safe: server/ai builds it from non-secret fields only
  };
}

/** The System page's details for `viewer`: the owner sees where the data lives, members do not. */
export function getSystemDetails(viewer: { role: "owner" | "member" }): TSystemDetails {
  const database = describeDatabase();
  const env = getEnv();
  const owner = viewer.role === "owner";
  return {
    ...getSystemStatus(),
    database: {
      kind: database.kind,
      location: !owner ? null : database.kind === "postgres" ? redactUrl(database.location) : database.location,
    },
    dataDir: owner && database.kind === "embedded" ? env.DATA_DIR : null,
    runtime: { node: process.version, platform: `${process.platform} ${process.arch}` },
    hiddenFromMembers: !owner,
  };
}
