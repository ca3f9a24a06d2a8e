import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeCapability } from "@/server/capabilities";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { ZCapturePayloadSchema } from "@/server/intelligence/replay/replay-basis";
import { decodeCapture } from "@/server/timeline";
import { cataloguePage } from "../fixtures/catalogue-page";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { createActiveTracker, cssPriceDefinition, localCapabilityConfig } from "../helpers/trackers";

/**
 * An unchanged page's HTML is not carried back (docs/refresh.md, "Unchanged pages"): web.scrape, told the content hashes
 * the refresh's entities hold, leaves out the storable HTML of a page whose hash is one of them, through the real page
 * worker and the fixture site; a changed page still keeps its HTML in its capture, and a known hash that turns out new
 * for the entity the page names is read again in full before its capture is kept.
 */

let t: TTestDb;
let site: TFixtureSite;

beforeAll(async () => {
  ({ t, site } = await openSiteWorld());
});
afterAll(() => closeSiteWorld(t, site));

const config = () => localCapabilityConfig([site.url], { timeoutMs: 5000, maxBytes: 500_000 });
const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: config(),
});

type TScrape = { html?: string; htmlOmitted?: true; contentHash?: string; css?: Record<string, unknown> };
async function scrape(path: string, knownContentHashes?: string[]): Promise<TScrape> {
  const envelope = await executeCapability(
    "web.scrape",
    { url: site.urlFor(path) },
    {
      config: config(),
      hashSalt: "t1:v1",
      cssQueries: [{ selector: "#price", all: false }],
      ...(knownContentHashes ? { knownContentHashes } : {}),
    },
  );
  expect(envelope.status).toBe("completed");
  return envelope.results as TScrape;
}

const captureHtmlOf = async (runId: string) => {
  const run = await t.db.refreshRun.findUniqueOrThrow({ where: { id: runId }, include: { capture: true } });
  if (!run.capture) throw new Error(`run ${runId} kept no capture`);
  return ZCapturePayloadSchema.parse(await decodeCapture(run.capture.data)).raw.html;
};

describe("an unchanged page's HTML", () => {
  it("is left out when its hash is one the caller holds, and sent otherwise (CSS answers either way)", async () => {
    site.setPage("/shop", { body: cataloguePage("$12.00") });
    const first = await scrape("/shop");
    expect(first.html).toContain('<span id="price">$12.00</span>');
    expect(first.htmlOmitted).toBeUndefined();
    const hash = first.contentHash as string;
    expect(hash).toMatch(/^d\d+:/);

    const known = await scrape("/shop", ["d3:someone-else", hash]);
    expect(known.htmlOmitted).toBe(true);
    expect(known.html).toBeUndefined();
    expect(known.contentHash).toBe(hash);
    expect(known.css).toEqual(first.css);

    // Another price is another document: its HTML comes back although hashes were named.
    site.setPage("/shop", { body: cataloguePage("$13.00") });
    const moved = await scrape("/shop", [hash]);
    expect(moved.htmlOmitted).toBeUndefined();
    expect(moved.html).toContain('<span id="price">$13.00</span>');
    expect(moved.contentHash).not.toBe(hash);
  });

  it("a refresh finds the page unchanged without it, and a change after that keeps the new HTML in its capture", async () => {
    site.setPage("/espresso", { body: cataloguePage("$12.00") });
    const { tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/espresso") },
      definition: cssPriceDefinition(0.05),
    });
    const baseline = await refreshTracker(t.db, tracker.id, options());
    expect(baseline.outcome).toBe("baseline");
    expect(await captureHtmlOf(baseline.runId)).toContain("$12.00");

    const unchanged = await refreshTracker(t.db, tracker.id, options());
    expect(unchanged.outcome).toBe("unchanged");
    const run = await t.db.refreshRun.findUniqueOrThrow({ where: { id: unchanged.runId } });
    expect(run.captureId).toBeNull();
    // One crawl: the page was not read twice.
    expect((run.steps as { step: string }[]).filter((s) => s.step === "crawl")).toHaveLength(1);

    site.setPage("/espresso", { body: cataloguePage("$15.00") });
    const changed = await refreshTracker(t.db, tracker.id, options());
    expect(changed.outcome).toBe("material");
    expect(await captureHtmlOf(changed.runId)).toContain('<span id="price">$15.00</span>');
  });

  it("a known hash that is new for the entity the page names is read again in full, so its capture has the HTML", async () => {
    site.setPage("/latte", { body: cataloguePage("$4.00") });
    const { tracker } = await createActiveTracker(t.db, {
      capability: "web.scrape",
      capabilityInput: { url: site.urlFor("/latte") },
      definition: cssPriceDefinition(0.05),
    });
    expect((await refreshTracker(t.db, tracker.id, options())).outcome).toBe("baseline");
    // The stored entity now goes by another key but keeps the page's hash: the crawl is told the hash, the pre-check
    // finds no entity under the page's own key, so this is a new entity's first read (a state no refresh makes).
    await t.db.trackedEntity.updateMany({
      where: { trackerId: tracker.id },
      data: { entityKey: "https://elsewhere/" },
    });

    const again = await refreshTracker(t.db, tracker.id, options());
    expect(again.outcome).toBe("baseline");
    expect(await captureHtmlOf(again.runId)).toContain('<span id="price">$4.00</span>');
    const run = await t.db.refreshRun.findUniqueOrThrow({ where: { id: again.runId } });
    expect((run.steps as { step: string }[]).filter((s) => s.step === "crawl")).toHaveLength(2);
  });
});
