import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AUTH_SECRET_FILE, loadOrCreateAuthSecret, resolveAuthSecret } from "../../server/auth/auth-secret";
import { parseEnv } from "../../server/env";

const dirs: string[] = [];
const tmpDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-secret-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the generated AUTH_SECRET file (embedded database)", () => {
  it("is created once under DATA_DIR with mode 0600, then reused", () => {
    const dir = path.join(tmpDir(), "data"); // not there yet
    const first = loadOrCreateAuthSecret(dir);
    const file = path.join(dir, AUTH_SECRET_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadOrCreateAuthSecret(dir)).toBe(first);
    expect(resolveAuthSecret({ AUTH_SECRET: undefined, DATA_DIR: dir })).toBe(first);
    expect(fs.readdirSync(dir)).toEqual([AUTH_SECRET_FILE]); // no temporary files left behind
    expect(loadOrCreateAuthSecret(tmpDir())).not.toBe(first);
  });

  it("tightens a loosened file and refuses one too short to be a secret", () => {
    const dir = tmpDir();
    const file = path.join(dir, AUTH_SECRET_FILE);
    fs.writeFileSync(file, "x".repeat(40), { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    expect(loadOrCreateAuthSecret(dir)).toBe("x".repeat(40));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.writeFileSync(file, "short");
    expect(() => loadOrCreateAuthSecret(dir)).toThrow(/Delete it to generate a new one/);
  });

  it("is not used when AUTH_SECRET is set (and nothing is written)", () => {
    const dir = tmpDir();
    expect(resolveAuthSecret({ AUTH_SECRET: "s".repeat(32), DATA_DIR: dir })).toBe("s".repeat(32));
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe("AUTH_SECRET in server/env.ts", () => {
  it("is required in production with DATABASE_URL, naming the variable and never echoing values", () => {
    const url = "postgresql://app:hunter2@db:5432/bw";
    expect(() => parseEnv({ NODE_ENV: "production", DATABASE_URL: url })).toThrow(
      /^Invalid configuration: AUTH_SECRET is required in production with DATABASE_URL/,
    );
    expect(() => parseEnv({ NODE_ENV: "production", DATABASE_URL: url })).not.toThrow(/hunter2/);
    expect(parseEnv({ NODE_ENV: "production", DATABASE_URL: url, AUTH_SECRET: "k".repeat(32) }).AUTH_SECRET).toBe(
      "k".repeat(32),
    );
    // Embedded database, or not production: generated when unset.
    expect(parseEnv({ NODE_ENV: "production" }).AUTH_SECRET).toBeUndefined();
    expect(parseEnv({ DATABASE_URL: url }).AUTH_SECRET).toBeUndefined();
  });

  it("must be at least 32 characters, and the error does not show it", () => {
    let message = "";
    try {
      parseEnv({ AUTH_SECRET: "tooshort-secret" });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/AUTH_SECRET must be at least 32 characters/);
    expect(message).not.toContain("tooshort-secret");
  });

  it("reads APP_URL and ALLOWED_HOSTS", () => {
    const env = parseEnv({ APP_URL: "https://bw.example.com", ALLOWED_HOSTS: " NAS.lan:3000, 10.0.0.5 ," });
    expect(env.APP_URL).toBe("https://bw.example.com");
    expect(env.ALLOWED_HOSTS).toEqual(["nas.lan:3000", "10.0.0.5"]);
    expect(() => parseEnv({ APP_URL: "bw.example.com" })).toThrow(/APP_URL must be an http/);
  });
});
