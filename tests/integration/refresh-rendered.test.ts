import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closeBrowsers, pooledBrowserPid, type TBrowserConfig, type TCapabilityConfig } from "@/server/capabilities";
import { refreshTracker, type TRefreshOptions } from "@/server/intelligence/refresh";
import { createSetupSession, getSetupState } from "@/server/intelligence/setup";
import { getCurrentState } from "@/server/timeline";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { jsPricePage } from "../fixtures/site/js-pages";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { dataPart, setupTurn } from "../helpers/setup-turn";
import {
  createActiveTracker,
  cssPriceDefinition,
  fixtureModel,
  localCapabilityConfig,
  testBrowserConfig,
} from "../helpers/trackers";

/**
 * Pages that need a browser through the real refresh path (docs/page-reading.md): real Chromium, PGlite, the fixture
 * site and the fixture model server; no network.
 */

const browser = testBrowserConfig();

let db: TTestDb;
let site: TFixtureSite;
let forbidden: TFixtureSite;
let models: TModelServer;

beforeAll(async () => {
  db = await createTestDb();
  site = await startFixtureSite();
  forbidden = await startFixtureSite();
  models = await startModelServer();
});
afterAll(async () => {
  await closeBrowsers();
  await site?.close();
  await forbidden?.close();
  await models?.close();
  await db?.close();
});
beforeEach(() => {
  models.setRecordings([]);
  forbidden.reset();
  forbidden.setPage("/secret", { body: "<p>secret</p>" });
});

function capabilityConfig(): TCapabilityConfig {
  const cfg = localCapabilityConfig([site.url], { timeoutMs: 5_000, maxBytes: 500_000 });
  cfg.fetch.browser = browser as TBrowserConfig;
  return cfg;
}

function optionsFor(extra: Partial<TRefreshOptions> = {}): TRefreshOptions {
  const model = fixtureModel(models.url);
  return {
    trigger: "manual",
    models: { filler: model, judge: model },
    capabilityConfig: capabilityConfig(),
    maxModelRetries: 0,
    ...extra,
  };
}
const rulesMode = (): Partial<TRefreshOptions> => ({ models: { filler: null, judge: null } });

/** Same field without an extractor: only the model can fill it, so a fill shows up as a model call. */
const modelPriceDefinition = {
  fields: [{ name: "price", type: "money", currency: "USD", description: "Pro plan monthly price" }],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 } },
};

async function trackerFor(path: string, definition: unknown, input: Record<string, unknown> = {}) {
  const { tracker } = await createActiveTracker(db.db, {
    capability: "web.scrape",
    capabilityInput: { url: site.urlFor(path), ...input },
    definition,
  });
  return tracker.id;
}

async function stateOf(trackerId: string) {
  const entity = await db.db.trackedEntity.findFirst({ where: { trackerId } });
  return entity ? getCurrentState(db.db, entity.id) : null;
}
const changeCount = (trackerId: string) => db.db.entityChange.count({ where: { trackerId } });
async function crawlDetail(runId: string) {
  const run = await db.db.refreshRun.findUniqueOrThrow({ where: { id: runId } });
  return (run.steps as { step: string; detail?: string }[]).find((s) => s.step === "crawl")?.detail ?? "";
}

describe.skipIf(!browser)("refresh of pages that need a browser (system Chromium)", () => {
  it("auto renders a JavaScript shell, remembers it, and an unchanged rendered page costs no model call and no change row", async () => {
    site.setPage("/app", jsPricePage({ price: "$49.00" }));
    models.setRecordings([
      {
        name: "fill",
        match: { schemaName: "tracker_record" },
        response: { json: { price: { amount: 49, currency: "USD" }, notable_signals: [] } },
      },
    ]);
    const trackerId = await trackerFor("/app", modelPriceDefinition);
    const first = await refreshTracker(db.db, trackerId, optionsFor());
    expect(first).toMatchObject({ status: "completed", outcome: "baseline", modelCalls: 1 });
    expect(await crawlDetail(first.runId)).toMatch(/rendered in a browser \(\d+ ms/);
    // The model read the rendered page, not the empty shell.
    expect(JSON.stringify(models.requests.at(-1)?.body ?? "")).toContain("49.00");
    // Remembered per tracker: the stored input now says this page needs the browser.
    const stored = await db.db.tracker.findUniqueOrThrow({ where: { id: trackerId } });
    expect(stored.capabilityInput).toMatchObject({ render: "auto", autoRender: true });

    site.setPage("/app", jsPricePage({ price: "$49.00" })); // new build stamp only
    const hitsBefore = site.hits("/app");
    const modelRequests = models.requests.length;
    const second = await refreshTracker(db.db, trackerId, optionsFor());
    expect(second).toMatchObject({ status: "completed", outcome: "unchanged", modelCalls: 0 });
    expect(models.requests.length).toBe(modelRequests);
    expect(await changeCount(trackerId)).toBe(1);
    // Straight to the browser: one request for the page, no plain probe first.
    expect(site.hits("/app") - hitsBefore).toBe(1);
    expect(await crawlDetail(second.runId)).toMatch(/rendered in a browser/);
  });

  it("never reads the shell (no price); always reads the rendered price (rules mode, CSS extractor)", async () => {
    site.setPage("/app2", jsPricePage({ price: "$29.00" }));
    const never = await trackerFor("/app2", cssPriceDefinition(0.05), { render: "never" });
    const neverRun = await refreshTracker(db.db, never, optionsFor(rulesMode()));
    expect((await stateOf(never))?.fields?.price ?? null).toBeNull();
    if (neverRun.status === "completed") expect(await crawlDetail(neverRun.runId)).toMatch(/plain fetch/);

    const always = await trackerFor("/app2", cssPriceDefinition(0.05), { render: "always" });
    const alwaysRun = await refreshTracker(db.db, always, optionsFor(rulesMode()));
    expect(alwaysRun).toMatchObject({ status: "completed", outcome: "baseline", modelCalls: 0 });
    expect((await stateOf(always))?.fields).toMatchObject({ price: { amount: 29, currency: "USD" } });
  });

  it("a sub-request to a loopback port that is not allowed is refused and the run completes", async () => {
    site.setPage(
      "/leaky",
      jsPricePage({
        price: "$39.00",
        extraScript: `fetch(${JSON.stringify(forbidden.urlFor("/secret"))}).catch(function () {});`,
      }),
    );
    const trackerId = await trackerFor("/leaky", cssPriceDefinition(0.05), { render: "always" });
    const run = await refreshTracker(db.db, trackerId, optionsFor(rulesMode()));
    expect(run).toMatchObject({ status: "completed", outcome: "baseline" });
    expect(forbidden.requests).toHaveLength(0);
    expect(await crawlDetail(run.runId)).toMatch(/1 request\(s\) blocked/);
    expect((await stateOf(trackerId))?.fields).toMatchObject({ price: { amount: 39 } });
  });

  it("browser killed mid-render → failed run with RENDER_FAILED, state untouched; the next run works", async () => {
    site.setPage("/crashy", jsPricePage({ price: "$59.00" }));
    const trackerId = await trackerFor("/crashy", cssPriceDefinition(0.05), { render: "always" });
    const baseline = await refreshTracker(db.db, trackerId, optionsFor(rulesMode()));
    expect(baseline).toMatchObject({ status: "completed", outcome: "baseline" });
    const before = await stateOf(trackerId);

    site.setPage("/crashy-data", { body: "{}", contentType: "application/json", delayMs: 10_000 });
    site.setPage("/crashy", jsPricePage({ price: "$99.00", extraScript: `fetch("/crashy-data");` }));
    const hits = site.hits("/crashy-data");
    const pending = refreshTracker(db.db, trackerId, optionsFor(rulesMode()));
    for (let i = 0; i < 400 && site.hits("/crashy-data") === hits; i++) await new Promise((r) => setTimeout(r, 25));
    const pid = await pooledBrowserPid(browser as TBrowserConfig);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, "SIGKILL");
    const failed = await pending;
    expect(failed).toMatchObject({ status: "failed", error: { code: "RENDER_FAILED", retryable: true } });
    expect(failed.error?.message).toMatch(/browser stopped while rendering/);
    const after = await stateOf(trackerId);
    expect(after?.fields).toEqual(before?.fields);
    expect(after?.updatedAt.getTime()).toBe(before?.updatedAt.getTime());
    expect(await changeCount(trackerId)).toBe(1);

    site.setPage("/crashy", jsPricePage({ price: "$99.00" }));
    const next = await refreshTracker(db.db, trackerId, optionsFor(rulesMode()));
    expect(next).toMatchObject({ status: "completed", outcome: "material" });
    expect((await stateOf(trackerId))?.fields).toMatchObject({ price: { amount: 99 } });
  });
});

describe.skipIf(!browser)("setup picks render from the sample (rules mode)", () => {
  it("a JavaScript shell is rendered, remembered on the tracker, drafted from the rendered price, and the card says so", async () => {
    site.setPage("/setup-app", jsPricePage({ price: "$45.00" }));
    site.setPage("/setup-plain", {
      body: `<html><head><title>Acme</title></head><body><main><h1>Pro</h1><p>Pro plan <span id="price">$45.00</span> per month, billed yearly.</p></main></body></html>`,
    });
    const userId = (await ensureLocalUser(db.db)).id;
    const read = async (path: string) => {
      const session = await createSetupSession(db.db, { userId });
      const turn = await setupTurn(db.db, {
        userId,
        sessionId: session.id,
        text: `Tell me if Acme changes its price — ${site.urlFor(path)}`,
        config: capabilityConfig(),
        model: null,
      });
      const state = await getSetupState(db.db, { userId, sessionId: session.id });
      const tracker = await db.db.tracker.findUniqueOrThrow({ where: { id: state.tracker?.id ?? "" } });
      return { turn, state, tracker };
    };

    const app = await read("/setup-app");
    expect(app.tracker.capabilityInput).toMatchObject({ render: "auto", autoRender: true });
    expect(app.state.draft?.view.reading).toMatch(
      /^Rendered in a browser: the sample page builds its content with JavaScript/,
    );
    const draft = dataPart(app.turn.reply, "draft");
    expect(draft?.status === "saved" ? draft.view.reading : null).toMatch(/Rendered in a browser/);
    expect(JSON.stringify(app.state.draft?.definition.fields)).toMatch(/money/);

    const plain = await read("/setup-plain");
    expect(plain.tracker.capabilityInput).not.toHaveProperty("autoRender");
    expect(plain.state.draft?.view.reading).toMatch(/^Read with a plain fetch/);
  });
});
