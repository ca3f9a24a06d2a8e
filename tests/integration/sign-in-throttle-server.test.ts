import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwner, freePort, startApp, stopStartedProcesses, type TApp } from "../helpers/app-process";

/**
 * Sign-in throttling on the real `npm start` (docs/accounts.md, "Sign-in throttling"), probed the way an outsider would: one
 * client, many X-Forwarded-For values. The app trusts 127.0.0.2 as its reverse proxy (TRUSTED_PROXIES), so the
 * same server is reached directly (connections from 127.0.0.1, whose X-Forwarded-For must be ignored) and through
 * the proxy (connections from 127.0.0.2, where each X-Forwarded-For value is a different client). Waits are capped
 * at 2 s (SIGN_IN_THROTTLE_MAX_SECONDS) so the account throttle can be waited out.
 */

const DIRECT = "127.0.0.1";
const PROXY = "127.0.0.2";
const OWNER = { email: "owner@app.test", password: "correct horse battery" };

let dataDir: string;
let app: TApp;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bw-sign-in-throttle-"));
  app = startApp({
    DATA_DIR: path.join(dataDir, "data"),
    PORT: String(await freePort()),
    SCHEDULER: "off",
    TRUSTED_PROXIES: PROXY,
    SIGN_IN_THROTTLE_MAX_SECONDS: "2",
  });
  await app.waitFor(/\[bellwether\] ready in/, 900_000); // includes the build, shared with the other app tests
  await createOwner(app, OWNER.email);
}, 960_000);

afterAll(async () => {
  if (app && app.proc.exitCode === null) {
    app.proc.kill("SIGTERM");
    await app.exited;
  }
  await stopStartedProcesses();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

type TAnswer = { status: number; code: string | undefined; retryAfter: string | undefined };

/** POST /api/auth/sign-in/email as the sign-in page sends it, over a connection from `from`. */
function signIn(from: string, body: { email: string; password: string }, headers: Record<string, string> = {}) {
  const payload = JSON.stringify(body);
  return new Promise<TAnswer>((resolve, reject) => {
    const req = http.request(
      `${app.url}/api/auth/sign-in/email`,
      {
        method: "POST",
        localAddress: from,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          origin: app.url,
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          const retryAfter = res.headers["retry-after"];
          resolve({
            status: res.statusCode ?? 0,
            code: (JSON.parse(text || "{}") as { code?: string }).code,
            retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** A wrong password for an email nobody has, so only the address limit can refuse it. */
const stranger = (n: number) => ({ email: `stranger${n}@example.com`, password: "not the password" });

describe("the address limit", () => {
  it("holds a direct client to 10 sign-ins a minute however it varies X-Forwarded-For (and the internal header)", async () => {
    const answers: TAnswer[] = [];
    for (let i = 1; i <= 40; i++) {
      const spoofed = { "x-forwarded-for": `203.0.113.${i}`, "x-bellwether-client-ip": `198.51.100.${i}` };
      answers.push(await signIn(DIRECT, stranger(i), spoofed));
    }
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(401));
    expect(answers.slice(10).map((a) => a.status)).toEqual(Array(30).fill(429));
    expect(answers.some((a) => a.code === "SIGN_IN_THROTTLED")).toBe(false);
  });

  it("through the trusted proxy, limits each forwarded client by its own address, which it cannot rewrite", async () => {
    const via = (forwardedFor: string) => ({ "x-forwarded-for": forwardedFor });
    for (let i = 101; i <= 110; i++) expect((await signIn(PROXY, stranger(i), via("203.0.113.50"))).status).toBe(401);
    const limited = await signIn(PROXY, stranger(111), via("203.0.113.50"));
    expect(limited.status).toBe(429);
    expect(limited.code).not.toBe("SIGN_IN_THROTTLED");
    // What the client wrote stands left of what the proxy appended, so it changes nothing.
    expect((await signIn(PROXY, stranger(112), via("6.6.6.6, 203.0.113.50"))).status).toBe(429);
    expect((await signIn(PROXY, stranger(113), via("6.6.6.7, 203.0.113.50"))).status).toBe(429);
    // Another client behind the same proxy has its own allowance.
    expect((await signIn(PROXY, stranger(114), via("203.0.113.51"))).status).toBe(401);
  });
});

describe("the account throttle", () => {
  it("holds one account whatever address the guesses come from: the right password waits too, then works", async () => {
    const from = (n: number) => ({ "x-forwarded-for": `198.51.100.${n}` });
    for (let i = 1; i <= 5; i++) {
      const guess = await signIn(PROXY, { email: OWNER.email, password: `wrong guess ${i}` }, from(i));
      expect(guess.status).toBe(401);
    }
    const guess = await signIn(PROXY, { email: OWNER.email, password: "wrong guess 6" }, from(6));
    expect(guess).toMatchObject({ status: 429, code: "SIGN_IN_THROTTLED" });
    const wait = Number(guess.retryAfter);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);
    expect(await signIn(PROXY, OWNER, from(7))).toMatchObject({ status: 429, code: "SIGN_IN_THROTTLED" });

    await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 250));
    expect((await signIn(PROXY, OWNER, from(8))).status).toBe(200);
    // The success cleared the count.
    expect((await signIn(PROXY, { email: OWNER.email, password: "wrong again" }, from(9))).status).toBe(401);
  });
});
