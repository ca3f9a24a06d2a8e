import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeCapability } from "@/server/capabilities";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState, lockSetup } from "@/server/intelligence/setup";
import { queryTimeline } from "@/server/timeline";
import { listTrackerSummaries } from "@/server/trackers";
import type { TFixtureSite } from "../fixtures/site/site";
import { makeTextlessPdf } from "../helpers/context-fixtures";
import type { TTestDb } from "../helpers/db";
import { makePriceListPdf, type TPriceList } from "../helpers/pdf-price-list";
import { setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * web.pdf (docs/capabilities.md): an address that answers a PDF is routed to it in setup; its text is read page by
 * page through the file-text worker; rules mode drafts the price the decision names and the document's lines; a PDF
 * generated again with a new creation date is no change; a changed price and a changed clause are recorded.
 */

let t: TTestDb;
let site: TFixtureSite;
let userId: string;
const config = () => localCapabilityConfig([site.url], { timeoutMs: 5000 });
const options = (): TRefreshOptions => ({
  trigger: "manual",
  models: { filler: null, judge: null },
  capabilityConfig: config(),
});
const LIST: TPriceList = { prices: { "Widget A": "$12.00", "Gadget Pro": "$120.00" }, paymentDays: 30 };
const servePdf = (path: string, base64: string, contentType = "application/pdf") =>
  site.setPage(path, { bodyBase64: base64, contentType });

beforeAll(async () => ({ t, site, userId } = await openSiteWorld()));
afterAll(() => closeSiteWorld(t, site));

describe("web.pdf", () => {
  it("setup routes a PDF address here and drafts the named price and the text; metadata is no change; a price and a clause are", async () => {
    servePdf("/prices.pdf", await makePriceListPdf(LIST));
    const session = await createSetupSession(t.db, { userId });
    await setupTurn(t.db, {
      userId,
      sessionId: session.id,
      text: `Is Acme raising the Gadget Pro price? ${site.urlFor("/prices.pdf")}`,
      config: config(),
      model: null,
    });
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    expect(state.sample).toMatchObject({ capability: "web.pdf", results: { pages: 2, document: { kind: "text" } } });
    const fields = state.draft?.definition.fields ?? [];
    expect(fields.map((f) => [f.name, f.type])).toEqual([
      ["gadget_pro_price", "money"],
      ["text", "string_list"],
    ]);
    const { trackerId } = await lockSetup(t.db, { userId, sessionId: session.id });
    const summary = (await listTrackerSummaries(t.db, { userId })).find((s) => s.id === trackerId);
    expect(summary).toMatchObject({ capability: "web.pdf", target: site.urlFor("/prices.pdf") });

    expect((await refreshTracker(t.db, trackerId, options())).outcome).toBe("baseline");
    const entries = async () => (await queryTimeline(t.db, { trackerId, order: "desc" })).items;
    const baseline = (await entries()).length;
    // The same words, generated again a month later by another tool: nothing to record.
    servePdf("/prices.pdf", await makePriceListPdf(LIST, { at: new Date("2026-02-01"), by: "Other PDF Writer 9" }));
    const again = await refreshTracker(t.db, trackerId, options());
    expect(again.outcome).toBe("unchanged");
    expect(await entries()).toHaveLength(baseline);

    // The named price falls 25 % and the payment terms shorten.
    servePdf(
      "/prices.pdf",
      await makePriceListPdf({ prices: { ...LIST.prices, "Gadget Pro": "$90.00" }, paymentDays: 14 }),
    );
    const changed = await refreshTracker(t.db, trackerId, options());
    expect(changed.outcome).toBe("material");
    const [entry, ...rest] = await entries();
    expect(rest).toHaveLength(baseline);
    expect(entry?.materiality).toBe("material");
    const deltas = JSON.stringify(entry?.delta);
    expect(deltas).toContain("gadget_pro_price");
    expect(deltas).toContain("Invoices are payable within 14 days of delivery.");
  });

  it("a variant named by a capital after its word (“Widget B”) is the price drafted, not its sibling's", async () => {
    servePdf(
      "/variants.pdf",
      await makePriceListPdf({ ...LIST, prices: { "Widget A": "$12.00", "Widget B": "$15.50" } }),
    );
    const session = await createSetupSession(t.db, { userId });
    await setupTurn(t.db, {
      userId,
      sessionId: session.id,
      text: `Is Acme raising the Widget B price? ${site.urlFor("/variants.pdf")}`,
      config: config(),
      model: null,
    });
    const state = await getSetupState(t.db, { userId, sessionId: session.id });
    const price = state.draft?.definition.fields.find((f) => f.type === "money");
    expect(price?.name).toBe("widget_b_price");
    expect(JSON.stringify(state.messages)).toContain("because the decision names “Widget B”");
  });

  it("reads a PDF served as a download; refuses what is not one, a PDF without text and a private address, in words", async () => {
    const read = (path: string) =>
      executeCapability("web.pdf", { url: site.urlFor(path) }, { config: config() }).then((e) => e);
    servePdf("/download", await makePriceListPdf(LIST), "application/octet-stream");
    const download = await read("/download");
    expect(download.status).toBe("completed");
    expect(download.results).toMatchObject({ pages: 2 });
    expect((download.results as { document: { mainText: string } }).document.mainText).toContain("Gadget Pro $120.00");

    site.setPage("/page.html", { body: "<p>Not a PDF</p>" });
    expect((await read("/page.html")).error).toMatchObject({ code: "UNSUPPORTED_CONTENT_TYPE" });
    servePdf("/fake.pdf", Buffer.from("<html>not really</html>").toString("base64"));
    expect((await read("/fake.pdf")).error?.message).toMatch(/did not answer with a PDF document/);
    servePdf("/scan.pdf", Buffer.from(await makeTextlessPdf()).toString("base64"));
    const scan = await read("/scan.pdf");
    expect(scan.error?.code).toBe("INVALID_RESPONSE");
    expect(scan.error?.message).toMatch(/has no text layer/);
    expect(scan.error?.message).not.toMatch(/\.txt/);

    const session = await createSetupSession(t.db, { userId });
    const turn = await setupTurn(t.db, {
      userId,
      sessionId: session.id,
      text: "Watch http://10.0.0.7/list.pdf",
      config: localCapabilityConfig([]),
      model: null,
    });
    expect(JSON.stringify(turn)).toMatch(/10\.0\.0\.7 is not a public address/);
  });
});
