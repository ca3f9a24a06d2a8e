import type { TestProject } from "vitest/node";
import { dropRunDatabases, newTestRunId, testDatabaseUrl } from "./db";

/**
 * Vitest global setup for the postgres project: names this run, and on teardown drops every
 * database the run created — including those of tests that crashed before their own drop().
 */
export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  const run = newTestRunId();
  project.provide("bellwetherTestRunId", run);
  const url = testDatabaseUrl;
  if (!url) return undefined;
  return async () => {
    await dropRunDatabases(url, run);
  };
}
