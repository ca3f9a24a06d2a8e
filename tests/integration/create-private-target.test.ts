import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRestRequest } from "@/server/api/rest/handle-rest-request";
import { createApiToken } from "@/server/api-tokens";
import { makeCapabilityConfig, type TCapabilityConfig } from "@/server/capabilities";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";

/**
 * docs/design.md §8, refused at the door: a page whose host is, or resolves to, a private, loopback or link-local address
 * is refused when the tracker is created (REST) and when setup binds it — a 400 naming the host, nothing created,
 * no fetch made. No network: names resolve through the capability config's resolver seam.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;
let token: string;
const resolved: string[] = [];

/** `intranet.test` → loopback, `metadata.test` → link-local, `mixed.test` → one public and one private address. */
const NAMES: Record<string, { address: string; family: number }[]> = {
  "intranet.test": [{ address: "127.0.0.1", family: 4 }],
  "metadata.test": [{ address: "169.254.169.254", family: 4 }],
  "mixed.test": [
    { address: "93.184.215.14", family: 4 },
    { address: "10.1.2.3", family: 4 },
  ],
  "shop.test": [{ address: "93.184.215.14", family: 4 }],
};

function config(allowHosts: string[] = []): TCapabilityConfig {
  return makeCapabilityConfig({
    fetch: {
      allowHosts,
      timeoutMs: 2000,
      headersTimeoutMs: 2000,
      resolve: async (hostname) => {
        resolved.push(hostname);
        const found = NAMES[hostname];
        if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
        return found;
      },
    },
  });
}

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  token = (await createApiToken(t.db, { userId, name: "ci" })).token;
  site.setPage("/shop", { body: "<html><head><title>Shop</title></head><body><p>Price 10</p></body></html>" });
});
afterAll(() => closeSiteWorld(t, site));

const definition = {
  fields: [{ name: "price", type: "number", description: "Price" }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

async function createViaApi(url: string, capabilityConfig = config()) {
  const response = await handleRestRequest(
    new Request("http://app/api/v1/trackers", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        decision: "Is the price moving?",
        capability: "web.scrape",
        capabilityInput: { url },
        definition,
      }),
    }),
    { db: t.db, refreshSeams: { capabilityConfig } },
  );
  return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
}

const REFUSED: { url: string; host: string; why: RegExp }[] = [
  { url: "http://127.0.0.1/admin", host: "127.0.0.1", why: /127\.0\.0\.1 is not a public address \(loopback/ },
  { url: "http://[::1]:8080/", host: "[::1]", why: /\[::1\] is not a public address \(loopback/ },
  { url: "http://10.0.0.1/router", host: "10.0.0.1", why: /10\.0\.0\.1 is not a public address \(private network/ },
  {
    url: "http://169.254.169.254/latest/meta-data/",
    host: "169.254.169.254",
    why: /169\.254\.169\.254 is not a public address \(link-local/,
  },
  { url: "http://localhost:3000/", host: "localhost", why: /localhost is not a public address \(loopback/ },
  {
    url: "https://intranet.test/wiki",
    host: "intranet.test",
    why: /intranet\.test resolves to 127\.0\.0\.1, and loopback/,
  },
  {
    url: "https://metadata.test/",
    host: "metadata.test",
    why: /metadata\.test resolves to 169\.254\.169\.254, and link-local/,
  },
  { url: "https://mixed.test/", host: "mixed.test", why: /mixed\.test resolves to 10\.1\.2\.3, and private network/ },
];

describe("POST /api/v1/trackers refuses a non-public host", () => {
  it.each(REFUSED)("$url → 400 naming $host, nothing created", async ({ url, host, why }) => {
    const before = await t.db.tracker.count();
    const res = await createViaApi(url);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe("BAD_REQUEST");
    expect(res.body.error?.message).toContain(host);
    expect(res.body.error?.message).toMatch(why);
    expect(res.body.error?.message).toMatch(/FETCH_ALLOW_HOSTS/);
    expect(await t.db.tracker.count()).toBe(before);
  });

  it("lets a public name through, and an allowed private host (FETCH_ALLOW_HOSTS)", async () => {
    const publicName = await createViaApi("https://shop.test/item");
    expect(publicName.status).toBe(201);
    expect(resolved).toContain("shop.test");

    const allowedHost = new URL(site.url).host; // 127.0.0.1:<port>
    const allowed = await createViaApi(site.urlFor("/shop"), config([allowedHost]));
    expect(allowed.status).toBe(201);
    // The same host without the allow-list entry is refused: the allow-list is what let it through.
    expect((await createViaApi(site.urlFor("/shop"))).status).toBe(400);
  });

  it("leaves a name that does not resolve to the fetch (its own guard and message)", async () => {
    const res = await createViaApi("https://not-yet-registered.test/");
    expect(res.status).toBe(201);
  });
});

describe("setup binding refuses a non-public host", () => {
  it.each(REFUSED)("$url → an error in the chat naming $host, no tracker, no fetch", async ({ url, host, why }) => {
    const session = await createSetupSession(t.db, { userId });
    const before = await t.db.tracker.count();
    const requestsBefore = site.requests.length;
    const turn = await setupTurn(t.db, {
      userId,
      sessionId: session.id,
      text: `Watch the price at ${url}`,
      config: config(),
      model: null,
    });
    const error = turn.replies.find((r) => r.kind === "error");
    expect(error?.text).toContain(host);
    expect(error?.text).toMatch(why);
    expect(error?.text).toMatch(/^Cannot watch /);
    expect(await t.db.tracker.count()).toBe(before);
    expect((await getSetupState(t.db, { userId, sessionId: session.id })).tracker).toBeNull();
    expect(site.requests.length).toBe(requestsBefore);
  });

  it("binds an allowed private host (the fixture site) and reads its sample", async () => {
    const session = await createSetupSession(t.db, { userId });
    const turn = await setupTurn(t.db, {
      userId,
      sessionId: session.id,
      text: `Watch the price at ${site.urlFor("/shop")}`,
      config: config([new URL(site.url).host]),
      model: null,
    });
    expect(turn.replies.filter((r) => r.kind === "error")).toEqual([]);
    expect((await getSetupState(t.db, { userId, sessionId: session.id })).tracker).not.toBeNull();
  });
});
