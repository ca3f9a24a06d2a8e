/**
 * Secrets the e2e apps are started with, chosen to be recognisable: after the whole run, the log scan
 * (tests/e2e/log-scan.teardown.ts) fails if any of them — or a session cookie or API token the run created —
 * appears in an app's output.
 */
export const SENTINELS = {
  OPENAI_API_KEY: "sk-sentinel-openai-4b1d9e7c2a6f",
  AUTH_SECRET: "sentinel-auth-secret-9c3e7a1b5d2f8e4a6c0b",
  CRON_SECRET: "sentinel-cron-secret-2f8d6b4a0e9c",
} as const;

/** Where each app's stdout and stderr are kept for the scan. */
export const E2E_LOG_DIR = ".test-data/e2e-logs";
