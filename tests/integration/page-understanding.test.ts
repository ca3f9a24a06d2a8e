import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  closePageWorkers,
  DOCUMENT_FORMAT_VERSION,
  documentFormatOfHash,
  executeCapability,
  hashStructuredDocument,
  type TWebScrapeOutput,
} from "@/server/capabilities";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { readCapture } from "@/server/intelligence/refresh/read-capture";
import { getCurrentState } from "@/server/timeline";
import { CORPUS_PAGES, type TCorpusPage, volatileFor } from "../fixtures/corpus/pages";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * Page understanding through the real web.scrape capability and the hot loop, on the local fixture
 * site: session redirects keep identity and hash, a NUL in page text is stored cleanly, and trackers
 * hashed under the old document format re-hash once without a change row.
 */

let db: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
  await closePageWorkers();
  await db?.close();
});

const config = () => localCapabilityConfig([site.url], { timeoutMs: 5_000 });
const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: config(),
});

async function scrape(url: string): Promise<TWebScrapeOutput> {
  const envelope = await executeCapability("web.scrape", { url }, { config: config() });
  expect(envelope.status, JSON.stringify(envelope.error)).toBe("completed");
  return envelope.results as TWebScrapeOutput;
}

const page = (id: string) => CORPUS_PAGES.find((p) => p.id === id) as TCorpusPage;

/** Every visit of `path` redirects to a URL carrying a new session id (query or path parameter). */
function serveWithSessionRedirect(path: string, body: string, visit: number) {
  const session = volatileFor(visit).session;
  const target = visit % 2 === 0 ? `${path}?sessionid=${session}` : `${path};jsessionid=${session}`;
  site.setPage(path, { redirectTo: target });
  site.setPage(target, { body });
}

describe("identity that survives sessions", () => {
  it("a page without a canonical link keeps its hash and entity key across redirects to ?sessionid= / ;jsessionid=", async () => {
    const p = page("text-de"); // no canonical link
    const path = "/shop/lampe";
    const hashes = new Set<string>();
    const keys = new Set<string>();
    const finals = new Set<string>();
    for (let visit = 0; visit < 4; visit++) {
      serveWithSessionRedirect(path, p.render(p.base, volatileFor(visit)), visit);
      const out = await scrape(`${site.url}${path}`);
      finals.add(out.finalUrl);
      hashes.add(hashStructuredDocument(out.document, "v1"));
      keys.add(readCapture("web.scrape", { url: `${site.url}${path}` }, out, { kind: "canonical_url" }).entityKey);
    }
    expect(finals.size).toBe(4); // every visit really ended on a different session URL
    expect(hashes.size).toBe(1);
    expect([...keys]).toEqual([`${site.url}${path}`]);
  });

  it("the hot loop records one entity and no change over session redirects, then sees an availability change", async () => {
    const p = page("microdata-meta-content");
    const path = "/shop/grinder";
    serveWithSessionRedirect(path, p.render(p.base, volatileFor(0)), 0);
    const { tracker } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: `${site.url}${path}` },
      definition: {
        fields: [
          {
            name: "price",
            type: "money",
            currency: "AUD",
            description: "Grinder price",
            extractor: { kind: "json_pointer", pointer: "/offers/0/price" },
          },
          {
            name: "availability",
            type: "string",
            description: "Stock",
            extractor: { kind: "json_pointer", pointer: "/availability/value" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.01 }, availability: { kind: "any_change" } },
      },
    });
    const outcomes: (string | null)[] = [];
    for (let visit = 0; visit < 3; visit++) {
      serveWithSessionRedirect(path, p.render(p.base, volatileFor(visit)), visit);
      outcomes.push((await refreshTracker(db.db, tracker.id, options())).outcome);
    }
    expect(outcomes).toEqual(["baseline", "unchanged", "unchanged"]);
    serveWithSessionRedirect(path, p.render(p.availabilityChange as never, volatileFor(3)), 3);
    const changed = await refreshTracker(db.db, tracker.id, options());
    expect(changed).toMatchObject({ outcome: "material" });
    expect(changed.summary).toContain("availability");
    expect(await db.db.trackedEntity.count({ where: { trackerId: tracker.id } })).toBe(1);
    expect(await db.db.entityChange.count({ where: { trackerId: tracker.id } })).toBe(2);
  });
});

describe("one parse per page", () => {
  it("web.scrape answers the caller's CSS queries from the parse that built the document", async () => {
    const p = page("microdata-text-values");
    site.setPage("/css", { body: p.render(p.base, volatileFor(0)) });
    const envelope = await executeCapability(
      "web.scrape",
      { url: `${site.url}/css` },
      {
        config: config(),
        cssQueries: [
          { selector: "[itemprop=price]", all: false },
          { selector: "h1", attribute: "itemprop", all: true },
          { selector: ".nothing", all: false },
          { selector: "p[", all: false },
        ],
      },
    );
    const out = envelope.results as TWebScrapeOutput;
    expect(out.css).toEqual({
      "one||[itemprop=price]": { ok: true, values: ["$349.00"] },
      "all|itemprop|h1": { ok: true, values: ["name"] },
      "one||.nothing": { ok: false, reason: "no_match" },
      "one||p[": { ok: false, reason: "invalid_selector" },
    });
    expect(out.document.offers[0]).toMatchObject({ price: 349, currency: "USD", availability: "InStock" });
  });
});

describe("text the database refuses", () => {
  it("a NUL and a lone surrogate in page text, title, JSON-LD and extractor values never fail the run", async () => {
    const body = `<html><head><title>Bad\u0000Title</title>
<script type="application/ld+json">{"@type":"Product","name":"Lamp\\u0000 \\ud800x","offers":{"price":"12.00","priceCurrency":"EUR","availability":"InStock"}}</script></head>
<body><main><h1>Lamp\u0000 Pro</h1><p id="desc">Bright\u0000light</p><p>Price: 12,00 €</p></main></body></html>`;
    site.setPage("/nul", { body });
    const { tracker } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: `${site.url}/nul` },
      definition: {
        fields: [
          { name: "desc", type: "string", description: "Description", extractor: { kind: "css", selector: "#desc" } },
          {
            name: "name",
            type: "string",
            description: "Name",
            extractor: { kind: "json_pointer", pointer: "/jsonLd/0/name" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: {},
      },
    });
    for (let i = 0; i < 2; i++) {
      const result = await refreshTracker(db.db, tracker.id, options());
      expect(result.status, JSON.stringify(result.error)).toBe("completed");
    }
    const entity = await db.db.trackedEntity.findFirstOrThrow({ where: { trackerId: tracker.id } });
    const state = await getCurrentState(db.db, entity.id);
    expect(state?.fields).toMatchObject({ desc: "Brightlight", name: "Lamp x" });
    const out = await scrape(`${site.url}/nul`);
    expect(JSON.stringify(out.document)).not.toMatch(/\\u0000|\\ud800/i);
    expect(out.document.title).toBe("Bad Title"); // the NUL went, as a separator
  });
});

describe("upgrade to a new document format", () => {
  async function trackerOnCorpusPage(id: string, path: string, fields: unknown[]) {
    const p = page(id);
    site.setPage(path, { body: p.render(p.base, volatileFor(0)) });
    const { tracker } = await createActiveTracker(db.db, {
      capability: "web.scrape",
      capabilityInput: { url: `${site.url}${path}` },
      definition: { fields, identityRule: { kind: "canonical_url" }, materiality: {} },
    });
    const first = await refreshTracker(db.db, tracker.id, options());
    expect(first.outcome).toBe("baseline");
    const entity = await db.db.trackedEntity.findFirstOrThrow({ where: { trackerId: tracker.id } });
    // What an existing tracker has: a hash made before documents carried a format version (format 1).
    await db.db.entityCurrentState.update({ where: { entityId: entity.id }, data: { contentHash: "f".repeat(64) } });
    return { p, trackerId: tracker.id, entityId: entity.id };
  }

  const priceField = {
    name: "price",
    type: "string",
    description: "Price as shown",
    extractor: { kind: "css", selector: ".price" },
  };

  it("re-hashes once without a change row or model call, then behaves as before", async () => {
    const { p, trackerId, entityId } = await trackerOnCorpusPage("jsonld-offer", "/upgrade/a", [priceField]);
    expect(documentFormatOfHash("f".repeat(64))).toBe(1);
    const before = await getCurrentState(db.db, entityId);
    site.setPage("/upgrade/a", { body: p.render(p.base, volatileFor(1)) });
    const upgraded = await refreshTracker(db.db, trackerId, options());
    expect(upgraded).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    expect(upgraded.summary).toContain("re-hashed");
    const after = await getCurrentState(db.db, entityId);
    expect(documentFormatOfHash(after?.contentHash ?? "")).toBe(DOCUMENT_FORMAT_VERSION);
    expect(after?.fields).toEqual(before?.fields);
    expect(await db.db.entityChange.count({ where: { trackerId } })).toBe(1); // the baseline only
    const run = await db.db.refreshRun.findUniqueOrThrow({ where: { id: upgraded.runId } });
    expect((run.steps as { step: string; detail?: string }[]).find((s) => s.step === "precheck")?.detail).toBe(
      "new document format",
    );
    // From now on the plain pre-check answers.
    site.setPage("/upgrade/a", { body: p.render(p.base, volatileFor(2)) });
    const next = await refreshTracker(db.db, trackerId, options());
    expect(next).toMatchObject({ outcome: "unchanged", summary: "no change" });
  });

  it("an entity keyed the old way (a session redirect target) keeps its timeline under the new key", async () => {
    const { p, trackerId, entityId } = await trackerOnCorpusPage("text-de", "/upgrade/c", [
      { ...priceField, extractor: { kind: "json_pointer", pointer: "/availability/value" } },
    ]);
    // Before sessions were stripped, a redirect to ?sessionid=… became the key of a page without a canonical link.
    await db.db.trackedEntity.update({
      where: { id: entityId },
      data: { entityKey: `${site.url}/upgrade/c?sessionid=OLD1` },
    });
    site.setPage("/upgrade/c", { body: p.render(p.base, volatileFor(1)) });
    const upgraded = await refreshTracker(db.db, trackerId, options());
    expect(upgraded).toMatchObject({ status: "completed", outcome: "unchanged" });
    const entities = await db.db.trackedEntity.findMany({ where: { trackerId } });
    expect(entities.map((e) => [e.id, e.entityKey])).toEqual([[entityId, `${site.url}/upgrade/c`]]);
    expect(await db.db.entityChange.count({ where: { trackerId } })).toBe(1);
  });

  it("a real change that lands with the upgrade is still recorded", async () => {
    const { p, trackerId } = await trackerOnCorpusPage("jsonld-graph", "/upgrade/b", [
      { ...priceField, extractor: { kind: "json_pointer", pointer: "/offers/0/price" }, type: "number" },
    ]);
    site.setPage("/upgrade/b", { body: p.render(p.priceChange, volatileFor(1)) });
    const upgraded = await refreshTracker(db.db, trackerId, options());
    expect(upgraded.outcome).toBe("notable"); // no materiality rule, rules mode → notable
    expect(await db.db.entityChange.count({ where: { trackerId } })).toBe(2);
  });
});
