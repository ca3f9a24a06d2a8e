import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertPublicTarget,
  createMemoryLedger,
  executeCapability,
  getCapability,
  routeByContentType,
  type TReadBack,
} from "@/server/capabilities";
import { parseDefinition } from "@/server/intelligence/definition";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { listTrackerSummaries } from "@/server/trackers";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * feed.items (docs/sets.md): an RSS, Atom or JSON Feed read as a set of entries, each keyed by its id or link; read
 * back with its entries sorted by key (the hash ignores the feed's order) and one member per entry in feed order;
 * what is no feed is refused in words (a page names its feed); setup routes a feed's address here by its media type
 * and rules mode drafts a set.
 */

type TEntry = { key: string; title: string; link: string | null; published: string | null };
type TFeedResults = { format: string; title: string; homeUrl: string | null; entries: TEntry[]; truncated: boolean };

let t: TTestDb;
let site: TFixtureSite;
let userId: string;
const config = () => localCapabilityConfig([site.url], { timeoutMs: 5000 });
const fixture = (name: string) => fs.readFileSync(`tests/fixtures/feeds/${name}`, "utf8");
const serve = (at: string, name: string, contentType: string) => site.setPage(at, { body: fixture(name), contentType });
const read = (at: string, ctx: Partial<Parameters<typeof executeCapability>[2]> = {}) =>
  executeCapability("feed.items", { url: site.urlFor(at) }, { config: config(), ...ctx });
function readBack(at: string, results: unknown): TReadBack {
  const feed = getCapability("feed.items");
  if (!feed) throw new Error("feed.items is not registered");
  return feed.readBack({ url: site.urlFor(at) }, results);
}
const sorted = (keys: string[]) => [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

beforeAll(async () => ({ t, site, userId } = await openSiteWorld()));
afterAll(() => closeSiteWorld(t, site));

describe("feed.items", () => {
  it("reads an RSS changelog as entries and reads it back as a set: sorted document, members in feed order", async () => {
    serve("/changelog/rss.xml", "changelog.rss.xml", "application/rss+xml; charset=utf-8");
    const ledger = createMemoryLedger();
    const envelope = await read("/changelog/rss.xml", { ledger });
    expect(envelope.status).toBe("completed");
    const results = envelope.results as TFeedResults;
    expect(results).toMatchObject({
      url: site.urlFor("/changelog/rss.xml"),
      finalUrl: site.urlFor("/changelog/rss.xml"),
      status: 200,
      contentType: "application/rss+xml",
      format: "rss",
      title: "Lumen Deploy — Changelog",
      homeUrl: site.urlFor("/changelog"),
      truncated: false,
    });
    const keys = [
      "lumen-changelog-2026-12-03-build-cache",
      "https://lumen.example/changelog/2026-11-27-node-24",
      site.urlFor("/changelog/2026-11-18-log-search"),
      "lumen-changelog-2026-11-05-edge-regions",
      "lumen-changelog-2026-10-22-deprecate-v1-api",
    ];
    expect(results.entries.map((e) => e.key)).toEqual(keys);
    // The request asked for a feed first, and its usage was recorded once.
    expect(site.requests.at(-1)?.headers.accept).toMatch(/^application\/rss\+xml,application\/atom\+xml/);
    expect([...ledger.entries.values()]).toMatchObject([
      { capability: "feed.items", status: "completed", requests: 1 },
    ]);

    const back = readBack("/changelog/rss.xml", results);
    const document = back.document as { title: string; homeUrl: string; entries: TEntry[] };
    expect(document.title).toBe("Lumen Deploy — Changelog");
    expect(document.homeUrl).toBe(site.urlFor("/changelog"));
    expect(document.entries.map((e) => e.key)).toEqual(sorted(keys));
    expect(back.raw.json).toBe(document);
    expect(back.ids).toEqual({ url: site.urlFor("/changelog/rss.xml") });
    expect(back.source).toBe(`feed ${site.urlFor("/changelog/rss.xml")}`);
    expect(back.items?.map((i) => i.key)).toEqual(keys);
    expect(back.items?.[0]).toEqual({
      key: "lumen-changelog-2026-12-03-build-cache",
      values: {
        title: "Build cache is now shared across branches",
        link: site.urlFor("/changelog/2026-12-03-build-cache"),
        published: "2026-12-03T16:20:00.000Z",
        updated: null,
        summary: expect.stringMatching(
          /^Builds on a new branch now start from the main branch’s cache, cutting cold builds by about 40%\./,
        ),
        author: null,
        categories: "Improvement, Builds",
      },
    });
    expect(back.items?.[3]?.values).toMatchObject({ author: "Lumen Release Team", categories: "Infrastructure" });
    // The same entries in another order are the same document: the set's hash does not see the feed's order.
    const reversed = readBack("/changelog/rss.xml", { ...results, entries: [...results.entries].reverse() });
    expect(reversed.document).toEqual(document);
    expect(reversed.items?.map((i) => i.key)).toEqual([...keys].reverse());
  });

  it("reads Atom press releases and a JSON Feed of jobs by their ids", async () => {
    serve("/press/feed.atom", "press.atom.xml", "application/atom+xml");
    const atom = await read("/press/feed.atom");
    expect(atom.status).toBe("completed");
    const press = atom.results as TFeedResults;
    expect(press.format).toBe("atom");
    const pressKeys = [
      "tag:northwind.example,2026:press/q3-results",
      "tag:northwind.example,2026:press/recall-oat-drink",
      "tag:northwind.example,2026:press/new-ceo",
      "tag:northwind.example,2026:press/lyon-plant",
      "tag:northwind.example,2026:press/sustainability-report-2025",
    ];
    const pressBack = readBack("/press/feed.atom", press);
    expect(pressBack.items?.map((i) => i.key)).toEqual(pressKeys);
    expect((pressBack.document as { entries: TEntry[] }).entries.map((e) => e.key)).toEqual(sorted(pressKeys));
    // An entry without <published>: null, not an empty string; its author is the feed's.
    expect(pressBack.items?.[3]?.values).toEqual({
      title: "Northwind to expand its Lyon plant",
      link: "https://northwind.example/press/2026/lyon-plant",
      published: null,
      updated: "2026-09-30T12:00:00.000Z",
      summary: "A €120 million investment adds two production lines and 180 jobs by 2028.",
      author: "Northwind Communications",
      categories: "Operations",
    });
    // xml:base re-bases a relative link.
    expect(pressBack.items?.[1]?.values.link).toBe("https://northwind.example/press/2026/recall-oat-drink");

    serve("/careers/jobs.json", "jobs.feed.json", "application/feed+json");
    const json = await read("/careers/jobs.json");
    expect(json.status).toBe("completed");
    const jobs = json.results as TFeedResults;
    expect(jobs).toMatchObject({ format: "json", title: "Fernwood Labs — Open positions" });
    const jobKeys = ["job-2231", "job-2219", "2204", "job-2190", "job-2177"];
    const jobsBack = readBack("/careers/jobs.json", jobs);
    expect(jobsBack.items?.map((i) => i.key)).toEqual(jobKeys);
    expect((jobsBack.document as { entries: TEntry[] }).entries.map((e) => e.key)).toEqual(sorted(jobKeys));
    expect(jobsBack.items?.[1]?.values).toMatchObject({
      title: "Senior Product Designer",
      link: "https://fernwood.example/careers/jobs/2219-senior-product-designer",
      updated: "2026-11-28T15:30:00.000Z",
      categories: "Design, Berlin",
    });
    // Only an external_url: that is its link.
    expect(jobsBack.items?.[4]?.values.link).toBe("https://jobs.workable.example/fernwood/2177");
    // web.scrape leaves a JSON Feed to feed.items (it would read it as one JSON document), and setup routes it here.
    const asPage = await executeCapability(
      "web.scrape",
      { url: site.urlFor("/careers/jobs.json") },
      { config: config() },
    );
    expect(asPage.error).toMatchObject({ code: "UNSUPPORTED_CONTENT_TYPE" });
    const jobsUrl = { url: site.urlFor("/careers/jobs.json") };
    expect(routeByContentType("web.scrape", jobsUrl, "application/feed+json")?.capability).toBe("feed.items");
  });

  it("reads a feed served as text/xml, which web.scrape refuses and setup routes here", async () => {
    serve("/feed.xml", "changelog.rss.xml", "text/xml");
    const envelope = await read("/feed.xml");
    expect(envelope.status).toBe("completed");
    expect((envelope.results as TFeedResults).entries).toHaveLength(5);
    const scraped = await executeCapability("web.scrape", { url: site.urlFor("/feed.xml") }, { config: config() });
    expect(scraped.error).toMatchObject({ code: "UNSUPPORTED_CONTENT_TYPE", details: { contentType: "text/xml" } });
    expect(routeByContentType("web.scrape", { url: site.urlFor("/feed.xml") }, "text/xml")).toEqual({
      capability: "feed.items",
      input: { url: site.urlFor("/feed.xml") },
    });
  });

  it("refuses a page (naming the feed it links), another media type and a private address, in words", async () => {
    site.setPage("/blog", {
      body: `<!doctype html><html><head><title>Lumen blog</title>
        <link rel="alternate" type="application/rss+xml" href="/changelog/rss.xml"></head>
        <body><h1>Blog</h1><p>Posts.</p></body></html>`,
    });
    const page = await read("/blog");
    expect(page.status).toBe("failed");
    expect(page.error).toMatchObject({
      code: "INVALID_RESPONSE",
      message: `${site.urlFor("/blog")} answered an HTML page (“Lumen blog”), not an RSS, Atom or JSON feed. The page names its feed: watch ${site.urlFor("/changelog/rss.xml")} instead.`,
      details: { found: "html", feedUrl: site.urlFor("/changelog/rss.xml") },
    });

    site.setPage("/logo.png", {
      bodyBase64: Buffer.from("not really a png").toString("base64"),
      contentType: "image/png",
    });
    const image = await read("/logo.png");
    expect(image.error).toMatchObject({
      code: "UNSUPPORTED_CONTENT_TYPE",
      message: `Refusing to read ${site.urlFor("/logo.png")} as a feed: it is image/png. feed.items reads RSS, Atom and JSON feeds.`,
      details: { contentType: "image/png" },
    });

    site.setPage("/sitemap.xml", {
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/</loc></url></urlset>`,
      contentType: "application/xml",
    });
    expect((await read("/sitemap.xml")).error?.message).toBe(
      `${site.urlFor("/sitemap.xml")} answered an XML document whose root element is <urlset>, not an RSS, Atom or JSON feed.`,
    );

    const closed = localCapabilityConfig([]);
    const blocked = await executeCapability("feed.items", { url: "http://10.0.0.7/feed.xml" }, { config: closed });
    expect(blocked.error?.code).toBe("BLOCKED_ADDRESS");
    await expect(assertPublicTarget("feed.items", { url: "http://10.0.0.7/feed.xml" }, closed)).rejects.toThrow(
      /10\.0\.0\.7 is not a public address/,
    );
  });

  it("setup routes a feed's address here by its media type and rules mode drafts the entries as a set", async () => {
    serve("/changelog/rss.xml", "changelog.rss.xml", "application/rss+xml");
    const session = await createSetupSession(t.db, { userId });
    const turn = await setupTurn(t.db, {
      userId,
      sessionId: session.id,
      text: `What did the rival ship? ${site.urlFor("/changelog/rss.xml")}`,
      config: config(),
      model: null,
    });
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.sample).toMatchObject({
      capability: "feed.items",
      input: { url: site.urlFor("/changelog/rss.xml") },
      results: { format: "rss", title: "Lumen Deploy — Changelog" },
    });
    const definition = state.draft?.definition;
    expect(definition?.fields.map((f) => [f.name, f.type, f.extractor])).toEqual([
      ["title", "string", { kind: "json_pointer", pointer: "/title" }],
      ["link", "string", { kind: "json_pointer", pointer: "/link" }],
      ["summary", "string", { kind: "json_pointer", pointer: "/summary" }],
      ["updated", "string", { kind: "json_pointer", pointer: "/updated" }],
    ]);
    expect(definition?.identityRule).toEqual({ kind: "canonical_url" });
    expect(definition?.set).toEqual({
      missingAfter: 2,
      maxEntities: 200,
      rules: [{ kind: "appeared" }, { kind: "disappeared" }],
    });
    expect(definition?.materiality).toMatchObject({
      title: { kind: "ask_agent" },
      link: { kind: "ignore" },
      summary: { kind: "ask_agent" },
      updated: { kind: "ignore" },
    });
    const parsed = parseDefinition(definition);
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && parsed.definition.set?.rules).toEqual([{ kind: "appeared" }, { kind: "disappeared" }]);

    const said = turn.replies.map((r) => r.text).join(" ");
    expect(said).toContain("drafted 4 fields");
    expect(said).toContain(
      "I watch the feed's 5 entries as a set, each with its title, link, summary and updated: new and removed entries are material (one counts as removed after 2 reads without it); an edited entry (its title or summary) is notable — AI is off, so an edit is recorded, not judged. A change to its link or updated alone is noise.",
    );
    const summary = (await listTrackerSummaries(t.db, { userId })).find((s) => s.id === state.tracker?.id);
    expect(summary).toMatchObject({ capability: "feed.items", target: site.urlFor("/changelog/rss.xml") });
  });
});
