import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TListingItem, TListingPlan } from "@/contracts/definition/listing-plan";
import {
  executeCapability,
  hashStructuredDocument,
  type TCapabilityConfig,
  type TCapabilityEnvelope,
  type TSetMember,
  type TWebScrapeInput,
  type TWebScrapeOutput,
  webScrape,
} from "@/server/capabilities";
import { detectListing, mergePages, readListing } from "@/server/capabilities/web-scrape/listing";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { countSql } from "../bench/sql-counter";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { createActiveTracker, localCapabilityConfig } from "../helpers/trackers";

/**
 * web.scrape reading a listing page as a set (docs/sets.md), on the local fixture site: the items its locked plan
 * reads, pages followed (same host, maxPages, no loops), and a read-back whose hash is the set's — a reorder or other
 * text on the page changes nothing, a changed listing changes exactly its changed members. Then a set tracker on it,
 * refreshed end to end.
 */

const file = (name: string) => readFileSync(`tests/fixtures/listings/${name}`, "utf8");
const SALT = "tracker:v1";
/** Text elsewhere on the page that moves on every visit: not part of the set. */
const withAd = (html: string) =>
  html.replace("</body>", `<aside class="promo">Sponsored · Deal of the day ${Math.random()}</aside></body>`);

let t: TTestDb;
let site: TFixtureSite;
let config: TCapabilityConfig;

beforeAll(async () => {
  ({ t, site } = await openSiteWorld());
  config = localCapabilityConfig([site.url], { timeoutMs: 5000 });
});
afterAll(() => closeSiteWorld(t, site));
beforeEach(() => site.reset());

async function scrape(input: Omit<TWebScrapeInput, "render">, cfg = config) {
  return (await executeCapability("web.scrape", input, { config: cfg, hashSalt: SALT })) as TCapabilityEnvelope<
    TWebScrapeOutput & { listing?: { items: TListingItem[]; pages: number; truncated: boolean } }
  >;
}

async function scrapeOk(input: Omit<TWebScrapeInput, "render">, cfg = config) {
  const env = await scrape(input, cfg);
  expect(env.error).toBeUndefined();
  expect(env.status).toBe("completed");
  const results = env.results as NonNullable<typeof env.results>;
  const back = webScrape.readBack(input as TWebScrapeInput, results);
  return { results, back, listing: results.listing as NonNullable<typeof results.listing> };
}

/** The plan as setup locks it (plain JSON), detected on the page as served. */
function planOf(html: string, url: string): TListingPlan {
  const found = detectListing(html, url);
  if (!found) throw new Error(`${url}: no listing detected`);
  return JSON.parse(JSON.stringify(found.plan)) as TListingPlan;
}

/** The keys whose member differs (added, removed, or other values) between two reads. */
function differing(a: readonly TSetMember[], b: readonly TSetMember[]): string[] {
  const before = new Map(a.map((m) => [m.key, JSON.stringify(m.values)]));
  const after = new Map(b.map((m) => [m.key, JSON.stringify(m.values)]));
  return [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).sort();
}

describe.each(["jsonld-itemlist", "microdata", "dom-cards", "table"])("web.scrape with a listing plan: %s", (shape) => {
  it("reads the plan's items; a reorder keeps the set's hash, a change moves exactly the changed members", async () => {
    const path = `/listings/${shape}/watched.html`;
    const url = site.urlFor(path);
    const base = file(`${shape}/base.html`);
    const plan = planOf(base, url);
    site.setPage(path, { body: base });
    const first = await scrapeOk({ url, listing: plan });
    const expected = readListing(base, url, plan).items;
    expect(expected.length).toBeGreaterThan(3);
    expect(first.listing).toEqual({ items: expected, pages: 1, truncated: false });
    // The read-back: members in page order, values exactly the plan's; the document holds them sorted by key.
    expect(first.back.items).toEqual(expected);
    const sorted = [...expected].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    expect(first.back.document).toEqual({ listing: sorted });
    expect(first.back.raw).toEqual({ json: first.back.document });
    expect(first.back.source).toBe(`web page ${url}`);
    expect(first.back.ids.url).toBe(url);
    // The pre-check's hash is the set's document, whoever computes it.
    const hash = hashStructuredDocument(first.back.document, SALT);
    expect(first.results.contentHash).toBe(hash);
    expect(first.back.contentHash).toBe(hash);

    site.setPage(path, { body: withAd(file(`${shape}/reordered.html`)) });
    const reordered = await scrapeOk({ url, listing: plan });
    expect(reordered.listing.items.map((i) => i.key)).not.toEqual(expected.map((i) => i.key));
    expect(hashStructuredDocument(reordered.back.document, SALT)).toBe(hash);
    expect(reordered.results.contentHash).toBe(hash);
    // The page itself did change: only the set's hash stands still.
    expect(hashStructuredDocument(reordered.results.document, SALT)).not.toBe(
      hashStructuredDocument(first.results.document, SALT),
    );

    const changedHtml = file(`${shape}/changed.html`);
    site.setPage(path, { body: changedHtml });
    const changed = await scrapeOk({ url, listing: plan });
    const moved = differing(expected, readListing(changedHtml, url, plan).items);
    expect(moved.length).toBeGreaterThan(0);
    expect(differing(first.back.items ?? [], changed.back.items ?? [])).toEqual(moved);
    expect(changed.results.contentHash).not.toBe(hash);
    expect(changed.results.contentHash).toBe(hashStructuredDocument(changed.back.document, SALT));
  });
});

describe("web.scrape following a paged listing", () => {
  const PAGES = [1, 2, 3].map((n) => `/listings/paged/page-${n}.html`);
  const serveAll = (dir = "paged") => {
    for (const n of [1, 2, 3]) site.setPage(`/listings/${dir}/page-${n}.html`, { body: file(`${dir}/page-${n}.html`) });
  };
  const pagedPlan = () => planOf(file("paged/page-1.html"), site.urlFor(PAGES[0] as string));
  /** What readListing reads from each page at its own address, merged. */
  const merged = (dir: string) =>
    mergePages(
      [1, 2, 3].map(
        (n) =>
          readListing(file(`${dir}/page-${n}.html`), site.urlFor(`/listings/${dir}/page-${n}.html`), pagedPlan()).items,
      ),
    );

  it("follows rel=next across the site's pages and merges them, each item once", async () => {
    serveAll();
    const plan = pagedPlan();
    expect(plan.nextPage).not.toBeNull();
    const { listing, back } = await scrapeOk({ url: site.urlFor(PAGES[0] as string), listing: plan });
    expect(listing.pages).toBe(3);
    expect(listing.truncated).toBe(false);
    expect(listing.items).toHaveLength(16);
    expect(listing.items).toEqual(merged("paged"));
    expect(back.items).toHaveLength(16);
    for (const p of PAGES) expect(site.hits(p)).toBe(1);
  });

  it("a listing that shifted between page reads gives the same members; the shifted listing read whole adds one", async () => {
    const plan = pagedPlan();
    // Page 1 as it was; by the time page 2 is fetched a book was added at the top (page 2 starts with page 1's last).
    site.setPage(PAGES[0] as string, { body: file("paged/page-1.html") });
    site.setPage(PAGES[1] as string, { body: file("paged/shifted/page-2.html") });
    site.setPage("/listings/paged/shifted/page-3.html", { body: file("paged/shifted/page-3.html") });
    const during = await scrapeOk({ url: site.urlFor(PAGES[0] as string), listing: plan });
    expect(during.listing.pages).toBe(3);
    serveAll();
    const before = await scrapeOk({ url: site.urlFor(PAGES[0] as string), listing: plan });
    expect(differing(before.back.items ?? [], during.back.items ?? [])).toEqual([]);
    expect(hashStructuredDocument(during.back.document, SALT)).toBe(hashStructuredDocument(before.back.document, SALT));

    serveAll("paged/shifted");
    const shifted = await scrapeOk({ url: site.urlFor("/listings/paged/shifted/page-1.html"), listing: plan });
    expect(shifted.listing.items).toHaveLength(17);
    expect(differing(before.back.items ?? [], shifted.back.items ?? [])).toEqual([site.urlFor("/books/book-00")]);
  });

  it("does not follow a next link to another host", async () => {
    serveAll();
    const plan = pagedPlan();
    const elsewhere = site.url.replace("127.0.0.1", "localhost");
    const page1 = file("paged/page-1.html").replaceAll(
      'href="/listings/paged/page-2.html"',
      `href="${elsewhere}/listings/paged/page-2.html"`,
    );
    site.setPage(PAGES[0] as string, { body: page1 });
    // Even where that host is allowed to be fetched: a listing's pages are on its own site.
    const cfg = localCapabilityConfig([site.url, elsewhere], { timeoutMs: 5000 });
    const { listing } = await scrapeOk({ url: site.urlFor(PAGES[0] as string), listing: plan }, cfg);
    expect(listing).toMatchObject({ pages: 1, truncated: false });
    expect(listing.items).toHaveLength(6);
    expect(site.hits(PAGES[1] as string)).toBe(0);
  });

  it("refuses a next page that redirects to another host", async () => {
    serveAll();
    const elsewhere = site.url.replace("127.0.0.1", "localhost");
    site.setPage(PAGES[1] as string, { redirectTo: `${elsewhere}/listings/paged/page-3.html` });
    const cfg = localCapabilityConfig([site.url, elsewhere], { timeoutMs: 5000 });
    const env = await scrape({ url: site.urlFor(PAGES[0] as string), listing: pagedPlan() }, cfg);
    expect(env.status).toBe("failed");
    expect(env.error?.code).toBe("INVALID_RESPONSE");
    expect(env.error?.message).toMatch(/Page 2 of the listing .* redirected to another site/);
  });

  it("reads at most maxPages pages and says the listing was cut", async () => {
    serveAll();
    const plan = { ...pagedPlan(), maxPages: 2 };
    const { listing } = await scrapeOk({ url: site.urlFor(PAGES[0] as string), listing: plan });
    expect(listing).toMatchObject({ pages: 2, truncated: true });
    expect(listing.items).toHaveLength(12);
    expect(site.hits(PAGES[2] as string)).toBe(0);
  });

  it("stops at a page already read (a last page linking back to the first)", async () => {
    serveAll();
    const last = file("paged/page-3.html").replace(
      '<span class="page-current">3</span>',
      '<span class="page-current">3</span> <a rel="next" href="/listings/paged/page-1.html">Next</a>',
    );
    site.setPage(PAGES[2] as string, { body: last });
    const { listing } = await scrapeOk({ url: site.urlFor(PAGES[0] as string), listing: pagedPlan() });
    expect(listing).toMatchObject({ pages: 3, truncated: false });
    expect(site.hits(PAGES[0] as string)).toBe(1);
  });

  it("fails the read, naming the page, when a next page cannot be read (never a partial set)", async () => {
    serveAll();
    site.setPage(PAGES[1] as string, { status: 503, body: "busy" });
    const env = await scrape({ url: site.urlFor(PAGES[0] as string), listing: pagedPlan() });
    expect(env.status).toBe("failed");
    expect(env.error?.message).toMatch(/^Reading page 2 of the listing: /);
  });
});

describe("web.scrape with a listing plan: edges", () => {
  it("a page whose plan reads no items is an empty set, not a failure", async () => {
    const path = "/listings/empty.html";
    const url = site.urlFor(path);
    const plan = planOf(file("dom-cards/base.html"), url);
    site.setPage(path, { body: "<!doctype html><html><body><main><p>No beans in stock.</p></main></body></html>" });
    const { listing, back } = await scrapeOk({ url, listing: plan });
    expect(listing).toEqual({ items: [], pages: 1, truncated: false });
    expect(back.items).toEqual([]);
    expect(back.document).toEqual({ listing: [] });
  });

  it("without a plan, web.scrape is a page read as before: the page's document and hash, no members", async () => {
    const path = "/listings/plain.html";
    site.setPage(path, { body: file("dom-cards/base.html") });
    const { results, back } = await scrapeOk({ url: site.urlFor(path) });
    expect(results.listing).toBeUndefined();
    expect(back.items).toBeUndefined();
    expect(back.document).toBe(results.document);
    expect(results.contentHash).toBe(hashStructuredDocument(results.document, SALT));
  });
});

describe("a set tracker on a listing page (web.scrape + listing plan)", () => {
  const options = (): TRefreshOptions => ({
    trigger: "manual",
    models: { filler: null, judge: null },
    capabilityConfig: config,
  });
  const rollUps = (trackerId: string) =>
    t.db.entityChange.findMany({
      where: { trackerId, entity: { entityKey: { not: { startsWith: "item:" } } } },
      orderBy: { capturedAt: "asc" },
    });

  it("baseline, an unchanged reordered listing at the floor, and a changed one as one material roll-up", async () => {
    const path = "/sets/machines.html";
    const url = site.urlFor(path);
    const base = file("jsonld-itemlist/base.html");
    const plan = planOf(base, url);
    site.setPage(path, { body: base });
    const { tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url, listing: plan },
      definition: {
        fields: [
          {
            name: "name",
            type: "string",
            description: "The machine's name",
            extractor: { kind: "json_pointer", pointer: "/name" },
          },
          {
            name: "price",
            type: "money",
            currency: "USD",
            description: "Its price, as the listing reads it (“449 USD”)",
            extractor: { kind: "json_pointer", pointer: "/price" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: { name: { kind: "any_change" }, price: { kind: "numeric", relative: 0.1 } },
        set: {
          missingAfter: 2,
          maxEntities: 200,
          rules: [
            { kind: "appeared" },
            { kind: "disappeared" },
            { kind: "any_item_drop", field: "price", minPercent: 10 },
          ],
        },
      },
      decision: "Which espresso machines does the rival list, and at what price?",
    });
    const stored = await t.db.tracker.findUniqueOrThrow({ where: { id: tracker.id } });
    expect((stored.capabilityInput as { listing?: unknown }).listing).toEqual(plan);

    const baseline = await refreshTracker(t.db, tracker.id, options());
    expect(baseline).toMatchObject({ status: "completed", outcome: "baseline" });
    const members = await t.db.trackedEntity.findMany({
      where: { trackerId: tracker.id, entityKey: { startsWith: "item:" } },
      include: { state: true },
    });
    const items = readListing(base, url, plan).items;
    expect(members).toHaveLength(items.length);
    const gaggia = members.find((m) => m.entityKey.includes("gaggia-classic-pro"));
    // The listing's "449 USD" reads as money through the field's JSON pointer.
    expect(gaggia?.state?.fields).toMatchObject({
      name: "Gaggia Classic Pro",
      price: { amount: 449, currency: "USD" },
    });

    site.setPage(path, { body: withAd(file("jsonld-itemlist/reordered.html")) });
    const counter = countSql(t.pglite);
    const again = await refreshTracker(t.db, tracker.id, options()).finally(() => counter.restore());
    expect(again).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    expect(counter.statements).toBeLessThanOrEqual(2);

    const changedHtml = file("jsonld-itemlist/changed.html");
    site.setPage(path, { body: changedHtml });
    const changed = await refreshTracker(t.db, tracker.id, options());
    expect(changed).toMatchObject({ status: "completed", outcome: "material" });
    const before = new Set(items.map((i) => i.key));
    const added = readListing(changedHtml, url, plan).items.filter((i) => !before.has(i.key));
    expect(added.length).toBeGreaterThan(0);
    const rows = await rollUps(tracker.id);
    expect(rows.map((r) => r.materiality)).toEqual(["baseline", "material"]);
    const delta = rows[1]?.delta as Record<string, { from: unknown; to: unknown }>;
    expect(delta.appeared?.to).toEqual(added.map((i) => i.values.name));
    expect(await t.db.changeOutbox.count({ where: { change: { trackerId: tracker.id } } })).toBe(1);
  });
});
