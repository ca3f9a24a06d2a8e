import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeBrowsers, type TCapabilityConfig } from "@/server/capabilities";
import { createSetupSession, getSetupState, setSetupReadMode } from "@/server/intelligence/setup";
import { getTracker } from "@/server/intelligence/tracker-store";
import { jsFilledPricePage } from "../fixtures/site/js-pages";
import type { TFixtureSite } from "../fixtures/site/site";
import type { TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import { closeSiteWorld, openSiteWorld } from "../helpers/site-world";
import { localCapabilityConfig, testBrowserConfig } from "../helpers/trackers";

/**
 * Choosing the browser read in setup: a page with plenty of text whose price a script fills in is noticed at
 * draft time, offered the browser read, rendered for the sample when a browser is configured, and the card's
 * switch (setSetupReadMode, the call the setup router makes) re-reads the sample and stores the mode.
 * Real Chromium, PGlite, the fixture site; no network.
 */

const browser = testBrowserConfig();

let t: TTestDb;
let site: TFixtureSite;
let userId: string;

beforeAll(async () => {
  ({ t, site, userId } = await openSiteWorld());
  site.setPage("/trail-runner", jsFilledPricePage({ price: "$129.00" }));
  site.setPage("/trail-runner-loading", jsFilledPricePage({ price: "$129.00", placeholder: "Loading…" }));
});
afterAll(async () => {
  await closeBrowsers();
  await closeSiteWorld(t, site);
});

function config(withBrowser: boolean): TCapabilityConfig {
  const cfg = localCapabilityConfig([site.url], { timeoutMs: 5_000, maxBytes: 500_000 });
  if (withBrowser && browser) cfg.fetch.browser = browser;
  return cfg;
}

async function start(path: string, withBrowser: boolean) {
  const session = await createSetupSession(t.db, { userId });
  const first = await setupTurn(t.db, {
    userId,
    sessionId: session.id,
    text: `Tell me when the Trail Runner price changes — ${site.urlFor(path)}`,
    config: config(withBrowser),
    model: null,
  });
  return { session, first, state: await getSetupState(t.db, { userId, sessionId: session.id }) };
}

const fieldNames = (state: Awaited<ReturnType<typeof getSetupState>>) =>
  state.draft?.definition.fields.map((f) => f.name) ?? [];

const hasMoney = (definition: unknown) =>
  ((definition as { fields?: { type: string }[] } | undefined)?.fields ?? []).some((f) => f.type === "money");

describe("setup: pages whose price a script fills in", () => {
  it("without a browser: reads it plainly, drafts no price, and the reply offers the browser read", async () => {
    for (const path of ["/trail-runner", "/trail-runner-loading"]) {
      const { first, state } = await start(path, false);
      expect(first.last?.text).toContain(
        "The price on this page is filled in by script; read it with a browser (render: always) to watch it",
      );
      expect(first.last?.text).toContain("no browser configured");
      expect(fieldNames(state).some((n) => n.includes("price"))).toBe(false);
      expect(state.draft?.view.readMode).toEqual({ mode: "auto", browser: false });
      expect(dataPart(first.reply, "draft")).toMatchObject({ status: "saved" });
    }
  });

  it.skipIf(!browser)("with a browser and render: auto: renders the sample and drafts the price", async () => {
    const { session, first, state } = await start("/trail-runner", true);
    expect(first.last?.text).toContain("filled in by script, so I read the sample in a browser");
    const price = state.draft?.definition.fields.find((f) => f.type === "money");
    expect(price, JSON.stringify(state.draft?.definition.fields)).toBeDefined();
    const sample = state.sample as { results: { document: { mainText: string } }; input: unknown };
    expect(sample.results.document.mainText).toContain("$129.00");
    const tracker = await getTracker(t.db, { userId, trackerId: state.tracker?.id ?? "" });
    expect(tracker.capabilityInput).toMatchObject({ render: "auto", autoRender: true });
    expect(session.id).toBeTruthy();
  });

  it.skipIf(!browser)(
    "the card's switch re-reads the sample that way and stores the mode for the tracker",
    async () => {
      const { session, state } = await start("/trail-runner", true);
      const trackerId = state.tracker?.id ?? "";

      const never = await setSetupReadMode(t.db, {
        userId,
        sessionId: session.id,
        render: "never",
        config: config(true),
      });
      expect(never.said.join(" ")).toContain("render: never");
      expect(never.said.join(" ")).toContain("read it with a browser (render: always)");
      expect(never.draft?.view.readMode?.mode).toBe("never");
      expect(hasMoney(never.draft?.definition)).toBe(false);
      expect((await getTracker(t.db, { userId, trackerId })).capabilityInput).toEqual({
        url: site.urlFor("/trail-runner"),
        render: "never",
      });
      let sample = (await getSetupState(t.db, { userId, sessionId: session.id })).sample as {
        results: { document: { mainText: string }; render: { rendered: boolean } };
      };
      expect(sample.results.document.mainText).not.toContain("$129.00");

      const always = await setSetupReadMode(t.db, {
        userId,
        sessionId: session.id,
        render: "always",
        config: config(true),
      });
      expect(always.draft?.view.readMode?.mode).toBe("always");
      expect(hasMoney(always.draft?.definition)).toBe(true);
      expect((await getTracker(t.db, { userId, trackerId })).capabilityInput).toMatchObject({ render: "always" });
      sample = (await getSetupState(t.db, { userId, sessionId: session.id })).sample as typeof sample;
      expect(sample.results.render.rendered).toBe(true);
      expect(sample.results.document.mainText).toContain("$129.00");
    },
  );

  it("refuses render: always when the server has no browser, leaving the tracker as it was", async () => {
    const { session, state } = await start("/trail-runner", false);
    await expect(
      setSetupReadMode(t.db, { userId, sessionId: session.id, render: "always", config: config(false) }),
    ).rejects.toThrow("no browser configured");
    const tracker = await getTracker(t.db, { userId, trackerId: state.tracker?.id ?? "" });
    expect((tracker.capabilityInput as { render: string }).render).toBe("auto");
  });
});
