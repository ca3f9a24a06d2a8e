import { spawn } from "node:child_process";

/** Runs `npm run auth:reset-password`'s script as a user would, with the new password piped on stdin. */
export function runResetPasswordCli(
  args: string[],
  input: { stdin: string; env: Record<string, string> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/auth-reset-password.ts", ...args], {
      cwd: process.cwd(),
      env: { ...process.env, LOG_LEVEL: "silent", ...input.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input.stdin);
  });
}
