import fs from "node:fs";
import path from "node:path";
import { E2E_LOG_DIR, SENTINELS } from "./sentinels";

/**
 * Runs once after every e2e spec: the apps' whole output (they ran at LOG_LEVEL=debug) must not contain a secret —
 * the configured sentinels, a session cookie value of the signed-in owners, or an API token. A finding fails the run.
 */
const API_TOKEN = /bw_[A-Za-z0-9_-]{40,}/;

function sessionCookieValues(): string[] {
  const states = fs.readdirSync(".test-data").filter((f) => f.endsWith("-owner-state.json"));
  return states.flatMap((file) => {
    const state = JSON.parse(fs.readFileSync(path.join(".test-data", file), "utf8")) as {
      cookies?: { name: string; value: string }[];
    };
    return (state.cookies ?? []).filter((c) => c.name.includes("session")).map((c) => decodeURIComponent(c.value));
  });
}

export default function scanLogs(): void {
  if (!fs.existsSync(E2E_LOG_DIR))
    throw new Error(`log scan: ${E2E_LOG_DIR} is missing — the apps' output was not kept`);
  const logs = fs.readdirSync(E2E_LOG_DIR).filter((f) => f.endsWith(".log"));
  if (logs.length === 0) throw new Error("log scan: no app logs to scan");
  const cookies = sessionCookieValues();
  const secrets: [string, string][] = [
    ...Object.entries(SENTINELS),
    ...cookies.flatMap((value) => [
      ["session cookie", value] as [string, string],
      // The token part alone (the cookie is "token.signature").
      ["session token", value.split(".")[0] ?? value] as [string, string],
    ]),
  ];
  const findings: string[] = [];
  for (const file of logs) {
    const text = fs.readFileSync(path.join(E2E_LOG_DIR, file), "utf8");
    if (!text.includes("[bellwether]")) findings.push(`${file}: does not look like an app log (no start-up lines)`);
    for (const [name, secret] of secrets)
      if (secret.length >= 8 && text.includes(secret)) findings.push(`${file}: ${name}`);
    const token = API_TOKEN.exec(text);
    if (token) findings.push(`${file}: an API token (${token[0].slice(0, 10)}…)`);
  }
  if (cookies.length === 0) findings.push("no session cookies were recorded by the owner setup (nothing to look for)");
  if (findings.length) throw new Error(`log scan found secrets in the app output:\n${findings.join("\n")}`);
  process.stdout.write(`log scan: ${logs.length} app logs clean of ${secrets.length} secrets and API tokens\n`);
}
