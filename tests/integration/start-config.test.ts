import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireDataDirLock } from "@/server/db-lock";
import { embeddedDatabaseDir } from "@/server/db-pglite";
import { runStart } from "../helpers/start-refusal";

/**
 * `npm start` refuses what it cannot serve before building or serving anything: one line on stderr naming
 * the variable (or the database) and what to do, exit code 1. None of these needs a build.
 */
const root = path.resolve(import.meta.dirname, "../..");

/** A refusal: exit 1, exactly one line on stderr, nothing built or served. */
function expectRefusal(result: ReturnType<typeof runStart>, line: RegExp) {
  expect(result.code).toBe(1);
  expect(result.stderr.split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(line);
  expect(result.stdout).not.toMatch(/building|starting on|ready/);
}

/** A loopback port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const tmpDirs: string[] = [];
afterAll(() => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("npm start with bad configuration", () => {
  it("stops on a malformed DATABASE_URL with a one-line error that names it (and hides its value)", () => {
    const result = runStart({ DATABASE_URL: "mysql://admin:s3cret@db/app" });
    expectRefusal(result, /DATABASE_URL/);
    expect(result.stderr + result.stdout).not.toContain("s3cret");
  });

  it("stops on an OPENAI_BASE_URL that is not a URL", () => {
    expectRefusal(runStart({ OPENAI_BASE_URL: "localhost:11434" }), /OPENAI_BASE_URL/);
  });
});

describe("npm start with AI settings that do not fit together", () => {
  it("refuses AI_PROVIDER=openai-compatible without OPENAI_BASE_URL", () => {
    expectRefusal(
      runStart({ AI_PROVIDER: "openai-compatible", AI_MODEL: "llama3.1" }),
      /^Invalid configuration: OPENAI_BASE_URL is required when AI_PROVIDER=openai-compatible: set it to/,
    );
  });

  it("refuses OPENAI_BASE_URL without AI_MODEL", () => {
    expectRefusal(
      runStart({ OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }),
      /^Invalid configuration: AI_MODEL is required with OPENAI_BASE_URL: set it to a model your server serves/,
    );
  });

  it("refuses AI_PROVIDER=openai without OPENAI_API_KEY", () => {
    expectRefusal(
      runStart({ AI_PROVIDER: "openai" }),
      /^Invalid configuration: OPENAI_API_KEY is required when AI_PROVIDER=openai/,
    );
  });
});

describe("npm start with a database it cannot serve", () => {
  it("refuses the embedded database on a serverless host", () => {
    expectRefusal(
      runStart({ VERCEL: "1" }),
      /^Invalid configuration: DATABASE_URL is required on a serverless host \(VERCEL is set\)/,
    );
  });

  it("retries an unreachable PostgreSQL with a visible countdown, then gives up with a readable line", async () => {
    const port = await closedPort();
    const result = runStart({
      DATABASE_URL: `postgresql://bellwether:pa55word@127.0.0.1:${port}/app`,
      DATABASE_WAIT_MS: "2000",
    });
    expectRefusal(
      result,
      new RegExp(
        `^Cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}/app \\(DATABASE_URL\\): connection refused .*DATABASE_WAIT_MS`,
      ),
    );
    const countdown = result.stdout.split("\n").filter((line) => /left…$/.test(line));
    expect(countdown.length).toBeGreaterThanOrEqual(1);
    expect(countdown[0]).toMatch(/not reachable: connection refused/);
    // Readable: no driver codes, and never the password.
    expect(result.stderr + result.stdout).not.toMatch(/ECONNREFUSED|P\d{4}|pa55word/);
  });

  it("exits at once when another process holds the embedded data directory, naming it", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-start-locked-"));
    tmpDirs.push(dataDir);
    const release = acquireDataDirLock(embeddedDatabaseDir(dataDir)); // held by this (live) test process
    try {
      const result = runStart({ DATA_DIR: dataDir });
      expectRefusal(result, new RegExp(`^The embedded database .* is in use by process ${process.pid} \\(`));
      expect(result.stdout).toBe(""); // refused before anything else happened
    } finally {
      release();
    }
  });
});

describe("npm start reads .env like Next does", () => {
  it("validates a bad value that only lives in .env.local", async () => {
    const file = path.join(root, ".env.local");
    if (fs.existsSync(file)) return; // never clobber a developer's own file
    fs.writeFileSync(file, "OPENAI_BASE_URL=not-a-url\n");
    try {
      const { code, stderr } = runStart({});
      expect(code).toBe(1);
      expect(stderr).toMatch(/OPENAI_BASE_URL/);
    } finally {
      fs.rmSync(file);
    }
  });
});
