import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** `npm start` refuses bad configuration before building or serving anything: one line, naming the variable. */
const root = path.resolve(import.meta.dirname, "../..");

function start(env: Record<string, string>) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NODE_ENV: "production", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, stderr: result.stderr.trim(), stdout: result.stdout.trim() };
}

describe("npm start with bad configuration", () => {
  it("stops on a malformed DATABASE_URL with a one-line error that names it (and hides its value)", () => {
    const { code, stderr, stdout } = start({ DATABASE_URL: "mysql://admin:s3cret@db/app" });
    expect(code).toBe(1);
    expect(stderr.split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/DATABASE_URL/);
    expect(stderr + stdout).not.toContain("s3cret");
    expect(stdout).not.toMatch(/building|ready/);
  });

  it("stops on an OPENAI_BASE_URL that is not a URL", () => {
    const { code, stderr } = start({ OPENAI_BASE_URL: "localhost:11434" });
    expect(code).toBe(1);
    expect(stderr.split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/OPENAI_BASE_URL/);
  });
});

describe("npm start reads .env like Next does", () => {
  it("validates a bad value that only lives in .env.local", async () => {
    const fs = await import("node:fs");
    const file = path.join(root, ".env.local");
    if (fs.existsSync(file)) return; // never clobber a developer's own file
    fs.writeFileSync(file, "OPENAI_BASE_URL=not-a-url\n");
    try {
      const { code, stderr } = start({});
      expect(code).toBe(1);
      expect(stderr).toMatch(/OPENAI_BASE_URL/);
    } finally {
      fs.rmSync(file);
    }
  });
});
