import { spawnSync } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * Runs `npm start`'s launcher (scripts/start.ts) in production mode with only `env` and waits for it to exit: for
 * the refusals, which all happen before anything is built or served.
 */
export function runStart(env: Record<string, string>) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      AUTH_SECRET: "start-config-test-secret-0123456789abcdef",
      ...env,
    },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stderr: result.stderr.trim(), stdout: result.stdout.trim() };
}
