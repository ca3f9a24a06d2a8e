import { createHash } from "node:crypto";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { FEED_ENTRY_LIMITS, type TFeedParse, ZFeedParseSchema } from "@/contracts/feed-entry";
import { CapabilityFailure } from "@/server/capabilities/envelope";
import { parseFeedDate } from "@/server/capabilities/feed-items/feed-date";
import { parseFeed } from "@/server/capabilities/feed-items/parse-feed";

const fixture = (name: string) => fs.readFileSync(`tests/fixtures/feeds/${name}`, "utf8");

const CHANGELOG_URL = "https://lumen.example/changelog/rss.xml";
const PRESS_URL = "https://northwind.example/press/feed.atom";
const JOBS_URL = "https://fernwood.example/careers/jobs.json";

/** Parsed, and checked against the contract every caller relies on. */
function parse(text: string, url: string, maxEntries = 50): TFeedParse {
  const result = parseFeed(text, { url, maxEntries });
  expect(ZFeedParseSchema.parse(result)).toEqual(result);
  return result;
}

function refusal(text: string, url = "https://acme.example/pricing"): CapabilityFailure {
  try {
    parseFeed(text, { url, maxEntries: 10 });
  } catch (error) {
    expect(error).toBeInstanceOf(CapabilityFailure);
    return error as CapabilityFailure;
  }
  throw new Error("expected the text to be refused");
}

const keysOf = (feed: TFeedParse) => feed.entries.map((e) => e.key);
const byKey = (feed: TFeedParse, key: string) => feed.entries.find((e) => e.key === key);

const rss = (items: string, channel = "<title>Test feed</title><link>https://t.example/</link>") =>
  `<?xml version="1.0"?><rss version="2.0"><channel>${channel}${items}</channel></rss>`;

describe("RSS 2.0: a changelog", () => {
  const feed = parse(fixture("changelog.rss.xml"), CHANGELOG_URL);

  it("reads the channel and every item in feed order", () => {
    expect(feed.format).toBe("rss");
    expect(feed.title).toBe("Lumen Deploy — Changelog");
    expect(feed.homeUrl).toBe("https://lumen.example/changelog");
    expect(feed.truncated).toBe(false);
    expect(feed.entries.map((e) => [e.key, e.keyKind])).toEqual([
      ["lumen-changelog-2026-12-03-build-cache", "id"],
      // A guid that is a URL is still an id.
      ["https://lumen.example/changelog/2026-11-27-node-24", "id"],
      // No guid: the link, resolved against the feed's address.
      ["https://lumen.example/changelog/2026-11-18-log-search", "link"],
      ["lumen-changelog-2026-11-05-edge-regions", "id"],
      ["lumen-changelog-2026-10-22-deprecate-v1-api", "id"],
    ]);
    expect(feed.entries.map((e) => e.title)).toEqual([
      "Build cache is now shared across branches",
      "Node.js 24 is the default runtime",
      "Deploy logs: search and filters",
      "Two new edge regions: Johannesburg and Jakarta",
      "Deprecation: the v1 Deployments API & what to use instead",
    ]);
  });

  it("resolves relative links and takes a permalink guid as the link when <link> is missing", () => {
    expect(feed.entries.map((e) => e.link)).toEqual([
      "https://lumen.example/changelog/2026-12-03-build-cache",
      "https://lumen.example/changelog/2026-11-27-node-24",
      "https://lumen.example/changelog/2026-11-18-log-search",
      "https://lumen.example/changelog/2026-11-05-edge-regions",
      "https://lumen.example/changelog/2026-10-22-v1-deprecation",
    ]);
  });

  it("reads RFC 822 dates (GMT, +0000, a named US zone, an offset) as UTC", () => {
    expect(feed.entries.map((e) => e.published)).toEqual([
      "2026-12-03T16:20:00.000Z",
      "2026-11-27T09:00:00.000Z",
      "2026-11-18T19:05:00.000Z", // 14:05 EST
      "2026-11-05T07:30:00.000Z", // 08:30 +0100
      "2026-10-22T12:00:00.000Z",
    ]);
    expect(feed.entries.every((e) => e.updated === null)).toBe(true);
  });

  it("makes HTML descriptions plain text: tags, entities, scripts and images gone", () => {
    expect(feed.entries[0]).toEqual({
      key: "lumen-changelog-2026-12-03-build-cache",
      keyKind: "id",
      title: "Build cache is now shared across branches",
      link: "https://lumen.example/changelog/2026-12-03-build-cache",
      published: "2026-12-03T16:20:00.000Z",
      updated: null,
      summary:
        "Builds on a new branch now start from the main branch’s cache, cutting cold builds by about 40%. Enabled for every project on the Team plan. Opt out with cache.shareAcrossBranches: false.",
      categories: ["Improvement", "Builds"],
      author: null,
    });
    // Escaped HTML (not CDATA) with an escaped ampersand inside it.
    expect(feed.entries[1]?.summary).toBe(
      "New projects build with Node.js 24 & npm 11. Existing projects keep their version until you change it in Settings → Runtime.",
    );
    expect(feed.entries[3]?.summary).toBe(
      "Requests from southern Africa and Southeast Asia are now served from jnb1 and cgk1.",
    );
    expect(feed.entries[4]?.summary).toBe("The v1 Deployments API stops answering on 31 March 2027. Move to v2.");
  });

  it("reads the author from <author> (email and name) and dc:creator", () => {
    expect(feed.entries.map((e) => e.author)).toEqual([null, null, null, "Lumen Release Team", "Mara Lindqvist"]);
  });
});

describe("Atom 1.0: press releases", () => {
  const feed = parse(fixture("press.atom.xml"), PRESS_URL);

  it("reads the feed and its entries by id", () => {
    expect(feed.format).toBe("atom");
    expect(feed.title).toBe("Northwind Foods — Press releases");
    expect(feed.homeUrl).toBe("https://northwind.example/press");
    expect(feed.entries.map((e) => [e.key, e.keyKind])).toEqual([
      ["tag:northwind.example,2026:press/q3-results", "id"],
      ["tag:northwind.example,2026:press/recall-oat-drink", "id"],
      ["tag:northwind.example,2026:press/new-ceo", "id"],
      ["tag:northwind.example,2026:press/lyon-plant", "id"],
      ["tag:northwind.example,2026:press/sustainability-report-2025", "id"],
    ]);
    expect(feed.entries.map((e) => e.title)).toEqual([
      "Northwind Foods reports third-quarter results",
      "Voluntary recall of Northwind Oat Drink 1 L",
      "Northwind names Amara Okafor chief executive", // type="html" title made plain
      "Northwind to expand its Lyon plant",
      "2025 sustainability report published",
    ]);
  });

  it("takes the alternate link (not the enclosure), relative to the feed or to the entry's xml:base", () => {
    expect(feed.entries.map((e) => e.link)).toEqual([
      "https://northwind.example/press/2026/q3-results",
      "https://northwind.example/press/2026/recall-oat-drink",
      "https://northwind.example/press/2026/new-ceo",
      "https://northwind.example/press/2026/lyon-plant",
      "https://northwind.example/press/2026/sustainability-report-2025",
    ]);
  });

  it("reads RFC 3339 dates with offsets and fractions as UTC; a missing published date is null", () => {
    expect(feed.entries.map((e) => [e.published, e.updated])).toEqual([
      ["2026-11-12T12:00:00.000Z", "2026-11-12T14:30:00.000Z"],
      ["2026-11-03T16:45:00.000Z", "2026-11-03T16:45:00.000Z"],
      ["2026-10-20T06:00:00.000Z", "2026-10-21T08:00:00.000Z"],
      [null, "2026-09-30T12:00:00.000Z"],
      ["2026-09-01T08:00:00.250Z", "2026-09-01T08:00:00.250Z"],
    ]);
  });

  it("reads summaries by their type, and the content when there is no summary", () => {
    expect(feed.entries.map((e) => e.summary)).toEqual([
      "Net sales rose 6.2% to $1.84 billion; organic growth was 4.9%. Full-year guidance is confirmed.",
      // type="text": a "<" is text, not a tag.
      "Lots with codes < 4471 and best-before dates up to 14 January 2027 are recalled as a precaution. Customers can return them to any store for a full refund.",
      // type="xhtml" content.
      "The board has appointed Amara Okafor as chief executive, effective 1 January 2027. She succeeds Henrik Vall, who retires after eleven years.",
      "A €120 million investment adds two production lines and 180 jobs by 2028.",
      "Scope 1 & 2 emissions fell 18% against 2020. Read the full report (PDF).",
    ]);
  });

  it("gives an entry without authors the feed's author, and uses category labels", () => {
    expect(feed.entries.map((e) => e.author)).toEqual([
      "Northwind Investor Relations",
      "Northwind Communications",
      "Northwind Communications",
      "Northwind Communications",
      "Northwind Communications",
    ]);
    expect(feed.entries.map((e) => e.categories)).toEqual([
      ["Financial results"],
      ["Product safety"],
      ["Leadership"],
      ["Operations"],
      ["Sustainability"],
    ]);
  });
});

describe("JSON Feed 1.1: job openings", () => {
  const feed = parse(fixture("jobs.feed.json"), JOBS_URL);

  it("reads the feed and its items by id (a numeric id too)", () => {
    expect(feed.format).toBe("json");
    expect(feed.title).toBe("Fernwood Labs — Open positions");
    expect(feed.homeUrl).toBe("https://fernwood.example/careers");
    expect(feed.entries.map((e) => [e.key, e.keyKind])).toEqual([
      ["job-2231", "id"],
      ["job-2219", "id"],
      ["2204", "id"],
      ["job-2190", "id"],
      ["job-2177", "id"],
    ]);
    expect(feed.entries.map((e) => e.title)).toEqual([
      "Senior Backend Engineer (Go)",
      "Senior Product Designer",
      "Data Analyst, Supply Chain",
      "Customer Success Manager (Lisbon)",
      "Office Manager (part-time)",
    ]);
  });

  it("resolves relative urls and falls back to external_url", () => {
    expect(feed.entries.map((e) => e.link)).toEqual([
      "https://fernwood.example/careers/jobs/2231-senior-backend-engineer",
      "https://fernwood.example/careers/jobs/2219-senior-product-designer",
      "https://fernwood.example/careers/jobs/2204-data-analyst-supply-chain",
      "https://fernwood.example/careers/jobs/2190-customer-success-manager",
      "https://jobs.workable.example/fernwood/2177",
    ]);
  });

  it("reads date_published and date_modified as UTC (a bare date as midnight UTC)", () => {
    expect(feed.entries.map((e) => [e.published, e.updated])).toEqual([
      ["2026-11-30T09:00:00.000Z", null],
      ["2026-11-24T09:00:00.000Z", "2026-11-28T15:30:00.000Z"],
      ["2026-11-16T16:00:00.000Z", null],
      ["2026-11-02T12:00:00.000Z", null],
      ["2026-10-28T00:00:00.000Z", null],
    ]);
  });

  it("prefers summary, then content_text, then content_html made plain", () => {
    expect(feed.entries.map((e) => e.summary)).toEqual([
      "Join the Payments team and build the ledger behind every Fernwood invoice. Remote (EU time zones) €85,000–€105,000",
      "Own the design of Fernwood's mobile apps, from research to shipped pixels.",
      "Forecast demand for 40 warehouses. SQL and Python; dbt is a plus.",
      "Help our enterprise customers get the most out of Fernwood & grow with them. See our benefits",
      "Keep our Berlin office running, three days a week.",
    ]);
  });

  it("reads tags and the item's author, else the feed's", () => {
    expect(feed.entries[0]?.categories).toEqual(["Engineering", "Remote"]);
    expect(feed.entries[3]?.categories).toEqual(["Customer Success", "Lisbon", "Hybrid"]);
    expect(feed.entries.map((e) => e.author)).toEqual([
      "Priya Raman",
      "Fernwood Talent Team",
      "Fernwood Talent Team",
      "Fernwood Talent Team",
      "Fernwood Talent Team",
    ]);
  });
});

describe("RSS 1.0 (RDF)", () => {
  it("reads items by their rdf:about", () => {
    const feed = parse(
      `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://gazette.example/">
    <title>Parish Gazette</title><link>https://gazette.example/</link><description>Notices</description>
    <items><rdf:Seq><rdf:li rdf:resource="https://gazette.example/notices/41"/></rdf:Seq></items>
  </channel>
  <item rdf:about="https://gazette.example/notices/41">
    <title>Road closure on Mill Lane</title><link>/notices/41</link>
    <description>Closed &lt;b&gt;7–9 December&lt;/b&gt; for resurfacing.</description>
    <dc:date>2026-12-01T09:00:00+01:00</dc:date><dc:creator>Parish Clerk</dc:creator><dc:subject>Roads</dc:subject>
  </item>
</rdf:RDF>`,
      "https://gazette.example/rss",
    );
    expect(feed).toEqual({
      format: "rdf",
      title: "Parish Gazette",
      homeUrl: "https://gazette.example/",
      truncated: false,
      entries: [
        {
          key: "https://gazette.example/notices/41",
          keyKind: "id",
          title: "Road closure on Mill Lane",
          link: "https://gazette.example/notices/41",
          published: "2026-12-01T08:00:00.000Z",
          updated: null,
          summary: "Closed 7–9 December for resurfacing.",
          categories: ["Roads"],
          author: "Parish Clerk",
        },
      ],
    });
  });
});

describe("identity", () => {
  it("trims the guid, and falls back to the link, then to a hash of title and date", () => {
    const feed = parse(
      rss(`
        <item><title>A</title><guid isPermaLink="false">   release-1.4.0
        </guid><link>/a</link></item>
        <item><title>B</title><link> /releases/1.3.0 </link></item>
        <item><title>C</title><pubDate>Mon, 30 Nov 2026 10:00:00 GMT</pubDate></item>`),
      "https://t.example/feed.xml",
    );
    const contentKey = `sha256:${createHash("sha256").update("C\n2026-11-30T10:00:00.000Z\n").digest("hex")}`;
    expect(feed.entries.map((e) => [e.key, e.keyKind])).toEqual([
      ["release-1.4.0", "id"],
      ["https://t.example/releases/1.3.0", "link"],
      [contentKey, "content"],
    ]);
  });

  it("an Atom entry without an id and a JSON item without an id fall back to their link", () => {
    const atom = parse(
      `<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><title>No id</title><link href="/posts/1"/></entry></feed>`,
      "https://t.example/atom.xml",
    );
    expect(atom.entries.map((e) => [e.key, e.keyKind])).toEqual([["https://t.example/posts/1", "link"]]);
    const json = parse(
      JSON.stringify({
        version: "https://jsonfeed.org/version/1.1",
        title: "T",
        items: [{ url: "/posts/2", content_text: "x" }],
      }),
      "https://t.example/feed.json",
    );
    expect(json.entries.map((e) => [e.key, e.keyKind])).toEqual([["https://t.example/posts/2", "link"]]);
  });

  it("a content key depends on the title and date, not on the position or the description", () => {
    const items = [
      "<item><title>Maintenance window</title><pubDate>Tue, 01 Dec 2026 22:00:00 GMT</pubDate><description>one</description></item>",
      "<item><title>Maintenance window</title><pubDate>Tue, 08 Dec 2026 22:00:00 GMT</pubDate></item>",
      "<item><title>Incident resolved</title><pubDate>Tue, 01 Dec 2026 22:00:00 GMT</pubDate></item>",
    ];
    const a = parse(rss(items.join("")), "https://t.example/feed.xml");
    const b = parse(rss([...items].reverse().join("")), "https://t.example/feed.xml");
    expect(new Set(keysOf(a)).size).toBe(3);
    expect(keysOf(b)).toEqual([...keysOf(a)].reverse());
    const edited = parse(rss(items[0]?.replace("one", "two") ?? ""), "https://t.example/feed.xml");
    expect(keysOf(edited)).toEqual([keysOf(a)[0]]);
  });

  it("untitled, undated entries are told apart by their text", () => {
    const feed = parse(
      rss("<item><description>First notice</description></item><item><description>Second notice</description></item>"),
      "https://t.example/feed.xml",
    );
    expect(feed.entries.map((e) => e.keyKind)).toEqual(["content", "content"]);
    expect(new Set(keysOf(feed)).size).toBe(2);
  });

  it("a very long id is kept short as its hash", () => {
    const id = `urn:x:${"a".repeat(2_000)}`;
    const feed = parse(
      rss(`<item><title>Long</title><guid isPermaLink="false">${id}</guid></item>`),
      "https://t.example/f",
    );
    expect(feed.entries[0]?.key).toBe(`sha256:${createHash("sha256").update(id).digest("hex")}`);
    expect(feed.entries[0]?.keyKind).toBe("id");
  });

  it("reordering the entries keeps every entry's key (all three fixtures)", () => {
    const reversedXml = (xml: string, tag: string) => {
      const pattern = new RegExp(`<${tag}[\\s>][\\s\\S]*?</${tag}>`, "g");
      const blocks = xml.match(pattern) ?? [];
      expect(blocks.length).toBe(5);
      const [first] = blocks;
      const start = xml.indexOf(first as string);
      const end = xml.lastIndexOf(blocks.at(-1) as string) + (blocks.at(-1) as string).length;
      return xml.slice(0, start) + [...blocks].reverse().join("\n") + xml.slice(end);
    };
    const jobs = JSON.parse(fixture("jobs.feed.json")) as { items: unknown[] };
    const cases = [
      [fixture("changelog.rss.xml"), reversedXml(fixture("changelog.rss.xml"), "item"), CHANGELOG_URL],
      [fixture("press.atom.xml"), reversedXml(fixture("press.atom.xml"), "entry"), PRESS_URL],
      [fixture("jobs.feed.json"), JSON.stringify({ ...jobs, items: [...jobs.items].reverse() }), JOBS_URL],
    ] as const;
    for (const [original, reordered, url] of cases) {
      const a = parse(original, url);
      const b = parse(reordered, url);
      expect(keysOf(b)).toEqual([...keysOf(a)].reverse());
      for (const entry of a.entries) expect(byKey(b, entry.key)).toEqual(entry);
    }
  });
});

describe("duplicate keys", () => {
  it("keeps the first entry with a key and drops the later ones", () => {
    const feed = parse(
      rss(`
        <item><title>v2.1.0 (re-published)</title><guid>release-2.1.0</guid></item>
        <item><title>v2.0.0</title><guid>release-2.0.0</guid></item>
        <item><title>v2.1.0</title><guid>release-2.1.0</guid></item>
        <item><title>Patch notes</title><link>https://t.example/notes</link></item>
        <item><title>Patch notes again</title><link>/notes</link></item>`),
      "https://t.example/feed.xml",
    );
    expect(feed.entries.map((e) => [e.key, e.title])).toEqual([
      ["release-2.1.0", "v2.1.0 (re-published)"],
      ["release-2.0.0", "v2.0.0"],
      ["https://t.example/notes", "Patch notes"],
    ]);
    expect(feed.truncated).toBe(false);
  });
});

describe("maxEntries", () => {
  it("keeps the first entries in feed order and says the feed listed more", () => {
    const three = parse(fixture("changelog.rss.xml"), CHANGELOG_URL, 3);
    expect(keysOf(three)).toEqual([
      "lumen-changelog-2026-12-03-build-cache",
      "https://lumen.example/changelog/2026-11-27-node-24",
      "https://lumen.example/changelog/2026-11-18-log-search",
    ]);
    expect(three.truncated).toBe(true);
    expect(parse(fixture("changelog.rss.xml"), CHANGELOG_URL, 5).truncated).toBe(false);
    const none = parse(fixture("jobs.feed.json"), JOBS_URL, 0);
    expect([none.entries.length, none.truncated]).toEqual([0, true]);
  });

  it("reads only what it keeps of a feed with very many entries", () => {
    const items = Array.from({ length: 20_000 }, (_, i) => `<item><title>T${i}</title><guid>g${i}</guid></item>`);
    const feed = parse(rss(items.join("")), "https://t.example/feed.xml", 10);
    expect(keysOf(feed)).toEqual(Array.from({ length: 10 }, (_, i) => `g${i}`));
    expect(feed.truncated).toBe(true);
  });
});

describe("links", () => {
  it("resolves relative, root-relative and scheme-relative links; drops what is not http(s)", () => {
    // The guids are permalinks by default, but "3" is no address: it never stands in for a dropped link.
    const feed = parse(
      rss(`
        <item><guid>1</guid><link>../pricing#plans</link></item>
        <item><guid>2</guid><link>//cdn.example/notes.html</link></item>
        <item><guid>3</guid><link>javascript:alert(1)</link></item>
        <item><guid>4</guid><link>mailto:press@t.example</link></item>
        <item><guid>5</guid><link>http://[bad</link></item>
        <item><guid>6</guid><link>https://T.Example/A%20B?x=1</link></item>`),
      "https://t.example/blog/feed.xml",
    );
    expect(feed.entries.map((e) => e.link)).toEqual([
      "https://t.example/pricing#plans",
      "https://cdn.example/notes.html",
      null,
      null,
      null,
      "https://t.example/A%20B?x=1",
    ]);
  });

  it("the same relative links resolve against whatever address served the feed", () => {
    const feed = parse(fixture("changelog.rss.xml"), "http://127.0.0.1:4020/feeds/changelog.xml");
    expect(feed.homeUrl).toBe("http://127.0.0.1:4020/changelog");
    expect(feed.entries[0]?.link).toBe("http://127.0.0.1:4020/changelog/2026-12-03-build-cache");
    // Absolute links and ids do not move.
    expect(feed.entries[3]?.link).toBe("https://lumen.example/changelog/2026-11-05-edge-regions");
    expect(feed.entries[2]?.key).toBe("http://127.0.0.1:4020/changelog/2026-11-18-log-search");
  });
});

describe("text", () => {
  it("cuts a long summary at a word, with an ellipsis, within the limit", () => {
    const words = Array.from({ length: 600 }, (_, i) => `word${i}`).join(" ");
    const feed = parse(
      rss(
        `<item><guid>long</guid><title>${"Title ".repeat(200)}</title><description><![CDATA[<div><p>${words}</p></div>]]></description></item>`,
      ),
      "https://t.example/f",
    );
    const entry = feed.entries[0];
    const summary = entry?.summary ?? "";
    expect(summary.length).toBeLessThanOrEqual(FEED_ENTRY_LIMITS.summaryChars);
    expect(summary.length).toBeGreaterThan(FEED_ENTRY_LIMITS.summaryChars * 0.8);
    expect(summary.endsWith("…")).toBe(true);
    const kept = summary.slice(0, -1);
    expect(words.startsWith(kept)).toBe(true);
    expect(words[kept.length]).toBe(" ");
    expect(entry?.title.length).toBeLessThanOrEqual(FEED_ENTRY_LIMITS.titleChars);
    expect(entry?.title.endsWith("Title…")).toBe(true);
  });

  it("bounds huge fields and many categories", () => {
    const categories = Array.from({ length: 100 }, (_, i) => `<category>c${i % 40}</category>`).join("");
    const feed = parse(
      rss(
        `<item><guid>big</guid><title>${"x".repeat(1_000_000)}</title><author>${"y".repeat(10_000)}</author>${categories}<category>${"z".repeat(500)}</category><description>${"&lt;p&gt;para ".repeat(200_000)}</description></item>`,
      ),
      "https://t.example/f",
    );
    const entry = feed.entries[0];
    expect(entry?.title.length).toBe(FEED_ENTRY_LIMITS.titleChars);
    expect(entry?.author?.length).toBe(FEED_ENTRY_LIMITS.authorChars);
    expect(entry?.summary.length).toBeLessThanOrEqual(FEED_ENTRY_LIMITS.summaryChars);
    expect(entry?.categories).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
  });

  it("collapses whitespace and keeps no NUL characters", () => {
    const feed = parse(
      JSON.stringify({
        version: "https://jsonfeed.org/version/1.1",
        title: "  Status\n\n  page ",
        items: [{ id: " 7 ", title: "Degraded\u0000 API\tlatency", content_text: "  line one\n\n\tline two  " }],
      }),
      "https://status.example/feed.json",
    );
    expect(feed.title).toBe("Status page");
    expect(feed.entries[0]).toMatchObject({ key: "7", title: "Degraded API latency", summary: "line one line two" });
  });
});

describe("dates", () => {
  it.each([
    ["Tue, 01 Dec 2026 09:30:00 GMT", "2026-12-01T09:30:00.000Z"],
    ["Tue, 1 Dec 2026 09:30:00 +0000", "2026-12-01T09:30:00.000Z"],
    ["1 Dec 2026 09:30 PST", "2026-12-01T17:30:00.000Z"],
    ["Tue, 01 Dec 26 09:30:00 EDT", "2026-12-01T13:30:00.000Z"],
    ["Tuesday, 01 December 2026 09:30:00 +05:30", "2026-12-01T04:00:00.000Z"],
    ["Tue, 01 Dec 2026 09:30:00 +0000 (UTC)", "2026-12-01T09:30:00.000Z"],
    ["Tue, 01 Dec 2026 09:30:00", "2026-12-01T09:30:00.000Z"],
    ["2026-12-01T09:30:00Z", "2026-12-01T09:30:00.000Z"],
    ["2026-12-01T09:30:00.123456-08:00", "2026-12-01T17:30:00.123Z"],
    ["2026-12-01T09:30:00+0100", "2026-12-01T08:30:00.000Z"],
    ["2026-12-01 09:30:00", "2026-12-01T09:30:00.000Z"],
    ["2026-12-01", "2026-12-01T00:00:00.000Z"],
    ["2026-12-31T23:59:60Z", "2026-12-31T23:59:59.000Z"],
  ])("%s → %s", (raw, iso) => {
    expect(parseFeedDate(raw)).toBe(iso);
  });

  it.each([
    "",
    "   ",
    "yesterday",
    "3",
    "Q4 2026",
    "2026-02-30T00:00:00Z",
    "2026-13-01",
    "2026-12-01T25:00:00Z",
    "Mon, 32 Dec 2026 10:00:00 GMT",
    "Tue, 01 Foo 2026 09:30:00 GMT",
    "Tue, 01 Dec 2026 09:30:00 XYZ",
    "12/01/2026",
  ])("%j is unreadable → null", (raw) => {
    expect(parseFeedDate(raw)).toBeNull();
  });

  it("an unreadable date in a feed is null, the entry is kept", () => {
    const feed = parse(
      rss("<item><guid>a</guid><title>A</title><pubDate>sometime soon</pubDate></item>"),
      "https://t.example/f",
    );
    expect(feed.entries.map((e) => [e.key, e.published])).toEqual([["a", null]]);
  });
});

describe("what is not a feed", () => {
  it("an HTML page is refused, saying so and naming the page", () => {
    const error = refusal(
      `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Pricing — Acme</title></head><body><h1>Plans</h1></body></html>`,
    );
    expect(error.code).toBe("INVALID_RESPONSE");
    expect(error.message).toBe(
      "https://acme.example/pricing answered an HTML page (“Pricing — Acme”), not an RSS, Atom or JSON feed.",
    );
    expect(error.details).toEqual({ found: "html" });
  });

  it("an HTML page that links its feed says where the feed is", () => {
    const error = refusal(
      `<html><head><title>Acme blog</title><link rel="alternate" type="application/rss+xml" title="RSS" href="/blog/feed.xml"></head><body><pre>&lt;rss version="2.0"&gt;</pre><rss version="2.0"><channel><item><title>x</title></item></channel></rss></body></html>`,
      "https://acme.example/blog",
    );
    expect(error.message).toBe(
      "https://acme.example/blog answered an HTML page (“Acme blog”), not an RSS, Atom or JSON feed. The page names its feed: watch https://acme.example/blog/feed.xml instead.",
    );
    expect(error.details).toEqual({ found: "html", feedUrl: "https://acme.example/blog/feed.xml" });
  });

  it("a JSON object that is not a JSON Feed is refused, naming its keys", () => {
    const error = refusal(JSON.stringify({ data: [{ id: 1 }], meta: { page: 1 } }), "https://api.acme.example/jobs");
    expect(error.code).toBe("INVALID_RESPONSE");
    expect(error.message).toBe(
      'https://api.acme.example/jobs answered JSON that is not a JSON Feed (its keys: “data”, “meta”; a JSON Feed has "version", "title" and "items"), not an RSS, Atom or JSON feed.',
    );
  });

  it("other XML, plain text, broken JSON and an empty body are refused in words", () => {
    expect(
      refusal(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://acme.example/</loc></url></urlset>`,
      ).message,
    ).toBe(
      "https://acme.example/pricing answered an XML document whose root element is <urlset>, not an RSS, Atom or JSON feed.",
    );
    expect(refusal("Service temporarily unavailable").message).toBe(
      "https://acme.example/pricing answered plain text (“Service temporarily unavailable”), not an RSS, Atom or JSON feed.",
    );
    expect(refusal('{"items": [').message).toBe(
      "https://acme.example/pricing answered text that starts like JSON but is not valid JSON, not an RSS, Atom or JSON feed.",
    );
    expect(refusal("[1, 2, 3]").message).toBe(
      "https://acme.example/pricing answered a JSON list of 3 values, not an RSS, Atom or JSON feed.",
    );
    expect(refusal(" \n ").message).toBe(
      "https://acme.example/pricing answered with an empty body, not an RSS, Atom or JSON feed.",
    );
  });

  it("a feed that is not well-formed XML is refused, saying why", () => {
    const error = refusal(`<rss version="2.0"><channel><title>Broken</title><item><title>a</ti`);
    expect(error.code).toBe("INVALID_RESPONSE");
    expect(error.message).toMatch(
      /^https:\/\/acme\.example\/pricing answered an RSS feed that is not well-formed XML \(.+\), so its entries cannot be read\.$/,
    );
  });

  it("an empty feed is a feed: zero entries", () => {
    expect(parse(rss("", "<title>Nothing yet</title>"), "https://t.example/f")).toEqual({
      format: "rss",
      title: "Nothing yet",
      homeUrl: null,
      entries: [],
      truncated: false,
    });
    expect(parse(`<rss version="2.0"><channel></channel></rss>`, "https://t.example/f").entries).toEqual([]);
    expect(parse(`<feed xmlns="http://www.w3.org/2005/Atom"/>`, "https://t.example/f").entries).toEqual([]);
    expect(
      parse(`{"version":"https://jsonfeed.org/version/1.1","title":"None","items":[]}`, "https://t.example/f").entries,
    ).toEqual([]);
  });

  it("a byte-order mark before a feed is ignored", () => {
    expect(parse(`\uFEFF${fixture("jobs.feed.json")}`, JOBS_URL).entries).toHaveLength(5);
    expect(parse(`\uFEFF${fixture("press.atom.xml")}`, PRESS_URL).entries).toHaveLength(5);
  });
});

describe("a second version of each feed: one entry new, one removed, one edited", () => {
  const cases = [
    {
      name: "RSS changelog",
      v1: "changelog.rss.xml",
      v2: "changelog-v2.rss.xml",
      url: CHANGELOG_URL,
      added: "lumen-changelog-2026-12-08-preview-comments",
      removed: "lumen-changelog-2026-10-22-deprecate-v1-api",
      edited: "lumen-changelog-2026-11-05-edge-regions",
      title: [
        "Two new edge regions: Johannesburg and Jakarta",
        "Three new edge regions: Johannesburg, Jakarta and Querétaro",
      ],
    },
    {
      name: "Atom press releases",
      v1: "press.atom.xml",
      v2: "press-v2.atom.xml",
      url: PRESS_URL,
      added: "tag:northwind.example,2026:press/food-bank-partnership",
      removed: "tag:northwind.example,2026:press/sustainability-report-2025",
      edited: "tag:northwind.example,2026:press/recall-oat-drink",
      title: ["Voluntary recall of Northwind Oat Drink 1 L", "Recall of Northwind Oat Drink 1 L extended to all lots"],
    },
    {
      name: "JSON Feed jobs",
      v1: "jobs.feed.json",
      v2: "jobs-v2.feed.json",
      url: JOBS_URL,
      added: "job-2240",
      removed: "job-2177",
      edited: "job-2219",
      title: ["Senior Product Designer", "Lead Product Designer"],
    },
  ];

  it.each(cases)("$name", ({ v1, v2, url, added, removed, edited, title }) => {
    const before = parse(fixture(v1), url);
    const after = parse(fixture(v2), url);
    const was = new Set(keysOf(before));
    const now = new Set(keysOf(after));
    expect(keysOf(after).filter((k) => !was.has(k))).toEqual([added]);
    expect(keysOf(before).filter((k) => !now.has(k))).toEqual([removed]);
    const changed = keysOf(after).filter((k) => was.has(k) && !isDeepEqual(byKey(before, k), byKey(after, k)));
    expect(changed).toEqual([edited]);
    expect([byKey(before, edited)?.title, byKey(after, edited)?.title]).toEqual(title);
  });
});

function isDeepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
