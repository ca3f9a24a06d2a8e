import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { AUTH_SECRET_MIN_LENGTH, type TEnv } from "../env";
import { AppError } from "../errors";

/** The generated secret's file name under DATA_DIR. */
export const AUTH_SECRET_FILE = "auth-secret";

/**
 * The secret that signs session cookies: AUTH_SECRET when set, otherwise one generated on first use and kept in
 * `DATA_DIR/auth-secret` (mode 0600), so `npm install && npm start` stays two commands and sessions survive
 * restarts. (server/env.ts refuses a production start with DATABASE_URL and no AUTH_SECRET.) Never logged.
 */
export function resolveAuthSecret(env: Pick<TEnv, "AUTH_SECRET" | "DATA_DIR">): string {
  return env.AUTH_SECRET ?? loadOrCreateAuthSecret(env.DATA_DIR);
}

/**
 * Reads `dir/auth-secret`, creating it first when missing. Creation is atomic and race-safe across processes:
 * the secret is written in full to a private temporary file, then hard-linked into place (link fails if the
 * name exists), so a reader never sees a half-written file and two starters agree on one secret.
 */
export function loadOrCreateAuthSecret(dir: string): string {
  const file = path.join(dir, AUTH_SECRET_FILE);
  const existing = readSecret(file);
  if (existing !== undefined) return existing;

  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${AUTH_SECRET_FILE}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    fs.writeFileSync(tmp, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
    fs.chmodSync(tmp, 0o600); // whatever the umask
    try {
      fs.linkSync(tmp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error; // another process won: use its secret
    }
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const created = readSecret(file);
  if (created === undefined) throw new AppError("INTERNAL", `Could not create ${file}.`);
  return created;
}

function readSecret(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const secret = text.trim();
  if (secret.length < AUTH_SECRET_MIN_LENGTH) {
    throw new AppError(
      "NOT_CONFIGURED",
      `${file} does not hold a usable secret (fewer than ${AUTH_SECRET_MIN_LENGTH} characters). Delete it to generate a new one (everyone will have to sign in again), or set AUTH_SECRET.`,
    );
  }
  // Tighten a file someone loosened; the secret signs every session.
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  return secret;
}
