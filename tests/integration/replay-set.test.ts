import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TReplayEntry, TReplayPlan } from "@/contracts/replay";
import { refreshTracker } from "@/server/intelligence/refresh";
import { replayTracker, saveDraftDefinition } from "@/server/trackers";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "../helpers/db";
import { RSS } from "../helpers/feed-set";
import { createActiveTracker, fixtureModel, localCapabilityConfig } from "../helpers/trackers";

/**
 * Replay of a set (docs/replay.md, docs/sets.md): a café's menu feed watched as a set, refreshed over a sequence of
 * reads — two drinks appear (listed in an order that is not their keys'), prices move, a title is edited, two drinks
 * go missing and then gone, the menu is reordered, they come back, a price rises. Replaying the locked definition
 * reproduces the stored roll-ups exactly; a stricter set rule or a larger missingAfter changes exactly the entries
 * that an independent walk of the documented rules — a small loop over the same item lists, written here, not the
 * engine's functions — says it should; a capture series that only reorders records nothing.
 */

type TDrink = { key: string; title: string; price: number };
const drink = (key: string, title: string, price: number): TDrink => ({ key, title, price });

const latte = drink("m-latte", "Latte", 5);
const mocha = drink("c-mocha", "Mocha", 6);
const espresso = drink("a-espresso", "Espresso", 3);
const flat = drink("z-flat-white", "Flat white", 4.5);
const chai = drink("b-chai", "Chai", 4);
const priced = (d: TDrink, price: number) => ({ ...d, price });
const titled = (d: TDrink, title: string) => ({ ...d, title });

/** The menu as read at each refresh (the feed's order), and the feed's own title (not a member's: no news). */
const READS: { items: TDrink[]; channel?: string }[] = [
  /* 0 baseline      */ { items: [latte, mocha, espresso] },
  /* 1 two appear    */ { items: [flat, chai, latte, mocha, espresso] },
  /* 2 prices drop   */ { items: [flat, chai, priced(latte, 3.9), priced(mocha, 5.7), espresso] },
  /* 3 title edited  */ {
    items: [flat, chai, priced(latte, 3.9), priced(mocha, 5.7), titled(espresso, "Espresso doppio")],
  },
  /* 4 two missing   */ { items: [priced(latte, 3.9), priced(mocha, 5.7), titled(espresso, "Espresso doppio")] },
  /* 5 same: gone    */ { items: [priced(latte, 3.9), priced(mocha, 5.7), titled(espresso, "Espresso doppio")] },
  /* 6 reordered     */ {
    items: [titled(espresso, "Espresso doppio"), priced(mocha, 5.7), priced(latte, 3.9)],
    channel: "Café menu (winter)",
  },
  /* 7 both back     */ {
    items: [flat, priced(latte, 3.9), chai, priced(mocha, 5.7), titled(espresso, "Espresso doppio")],
    channel: "Café menu (winter)",
  },
  /* 8 a price rises */ {
    items: [flat, priced(latte, 3.9), chai, priced(mocha, 7.2), titled(espresso, "Espresso doppio")],
    channel: "Café menu (winter)",
  },
];

const rssOf = (read: { items: TDrink[]; channel?: string }) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>${read.channel ?? "Café menu"}</title><link>https://cafe.example/</link>
<description>Drinks and prices</description>
${read.items
  .map(
    (d) => `<item><title>${d.title}</title><guid isPermaLink="false">${d.key}</guid>
<description>$${d.price.toFixed(2)}</description></item>`,
  )
  .join("\n")}
</channel></rss>`;

type TSetRules = { appeared: boolean; disappeared: boolean; dropPercent?: number };

/** Each drink's title and price; the price is the agent's to judge (rules mode: notable), an edited title material. */
const menuDefinition = (opts: { missingAfter?: number; rules?: TSetRules; priceDescription?: string } = {}) => {
  const rules = opts.rules ?? { appeared: true, disappeared: true };
  return {
    fields: [
      {
        name: "title",
        type: "string",
        description: "The drink's name",
        extractor: { kind: "json_pointer", pointer: "/title" },
      },
      {
        name: "price",
        type: "money",
        currency: "USD",
        description: opts.priceDescription ?? "The drink's price",
        extractor: { kind: "json_pointer", pointer: "/summary" },
      },
    ],
    identityRule: { kind: "canonical_url" },
    materiality: { title: { kind: "any_change" }, price: { kind: "ask_agent" } },
    set: {
      missingAfter: opts.missingAfter ?? 2,
      maxEntities: 200,
      rules: [
        ...(rules.appeared ? [{ kind: "appeared" }] : []),
        ...(rules.disappeared ? [{ kind: "disappeared" }] : []),
        ...(rules.dropPercent ? [{ kind: "any_item_drop", field: "price", minPercent: rules.dropPercent }] : []),
      ],
    },
  };
};

/**
 * The oracle: per read after the first, what the set records under a policy, walked by hand over READS as docs/sets.md
 * says — a drink is gone after `missingAfter` reads without it (and back is an appearance), a count that moved, a new,
 * gone or changed drink is a line; material when an edited title (its own rule), or a set rule, says so; else notable.
 */
function expectedUnder(missingAfter: number, rules: TSetRules): Map<number, "material" | "notable"> {
  const out = new Map<number, "material" | "notable">();
  const known = new Map<string, { title: string; price: number; missing: number; gone: boolean }>();
  for (const d of READS[0]?.items ?? []) known.set(d.key, { title: d.title, price: d.price, missing: 0, gone: false });
  for (let i = 1; i < READS.length; i++) {
    const items = READS[i]?.items ?? [];
    const listed = new Set(items.map((d) => d.key));
    let appeared = 0;
    let titleEdited = false;
    let changed = 0;
    let bigDrop = false;
    for (const d of items) {
      const k = known.get(d.key);
      if (!k || k.gone) {
        appeared++;
        known.set(d.key, { title: d.title, price: d.price, missing: 0, gone: false });
        continue;
      }
      k.missing = 0;
      if (k.title === d.title && k.price === d.price) continue;
      changed++;
      if (k.title !== d.title) titleEdited = true;
      if ((k.price - d.price) * 100 >= (rules.dropPercent ?? Number.POSITIVE_INFINITY) * k.price) bigDrop = true;
      k.title = d.title;
      k.price = d.price;
    }
    let gone = 0;
    for (const [key, k] of known) {
      if (k.gone || listed.has(key)) continue;
      k.missing++;
      if (k.missing >= missingAfter) {
        k.gone = true;
        gone++;
      }
    }
    // A line for the count (a drink appeared or went), the new, the gone and the changed (no price move is noise here).
    const moved = appeared > 0 || gone > 0 || changed > 0;
    const material =
      titleEdited || (rules.appeared && appeared > 0) || (rules.disappeared && gone > 0) || (bigDrop && changed > 0);
    if (material) out.set(i, "material");
    else if (moved) out.set(i, "notable");
  }
  return out;
}

const LOCKED = { missingAfter: 2, rules: { appeared: true, disappeared: true } };
const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (i: number) => new Date(Date.UTC(2026, 10, 2, 8) + i * DAY_MS);

let t: TTestDb;
let site: TFixtureSite;
let models: TModelServer;
let userId: string;
let trackerId: string;
const stepOfRun = new Map<string, number>();

async function refreshAll(path: string, id: string, reads: { items: TDrink[]; channel?: string }[]) {
  const runs: string[] = [];
  for (const [i, read] of reads.entries()) {
    site.setPage(path, { body: rssOf(read), contentType: RSS });
    const at = dayOf(i);
    const result = await refreshTracker(t.db, id, {
      trigger: "manual",
      models: { filler: null, judge: null },
      capabilityConfig: localCapabilityConfig([site.url], { timeoutMs: 5000 }),
      now: () => at,
    });
    expect(result.status).toBe("completed");
    runs.push(result.runId);
  }
  return runs;
}

beforeAll(async () => {
  t = await createTestDb();
  site = await startFixtureSite();
  models = await startModelServer();
  site.setPage("/replay-set/menu.rss", { body: rssOf(READS[0] as (typeof READS)[number]), contentType: RSS });
  const created = await createActiveTracker(t.db, {
    capability: "feed.items",
    capabilityInput: { url: site.urlFor("/replay-set/menu.rss") },
    definition: menuDefinition(),
    decision: "Did the café add, drop or reprice any drinks?",
  });
  userId = created.userId;
  trackerId = created.tracker.id;
  const runs = await refreshAll("/replay-set/menu.rss", trackerId, READS);
  for (const [i, runId] of runs.entries()) stepOfRun.set(runId, i);
}, 120_000);
afterAll(async () => {
  await site?.close();
  await models?.close();
  await t?.close();
});
beforeEach(() => models.setRecordings([]));

const rulesMode = { models: { filler: null, judge: null } };
const replayDraft = async (definition: unknown) => {
  await saveDraftDefinition(t.db, { userId, trackerId, definition });
  return replayTracker(
    t.db,
    { userId, trackerId, definition: "draft", modelBudget: 0, planOnly: false },
    {},
    rulesMode,
  );
};
const byStep = (entries: { runId: string; materiality: string }[]) =>
  new Map(entries.filter((e) => e.materiality !== "baseline").map((e) => [stepOfRun.get(e.runId), e.materiality]));
const strip = (e: TReplayEntry) => ({
  runId: e.runId,
  materiality: e.materiality,
  delta: e.delta,
  decisions: e.decisions,
});
const only = (a: Map<number, string>, b: Map<number, string>) =>
  [...a.keys()].filter((k) => !b.has(k)).sort((x, y) => x - y);
const steps = (runIds: string[]) => runIds.map((id) => stepOfRun.get(id) as number).sort((a, b) => a - b);

describe("replay of a set over its stored captures", () => {
  it("the recorded roll-ups are what the walk says, and every read stored a capture (the premise)", async () => {
    const runs = await t.db.refreshRun.findMany({ where: { trackerId }, select: { captureId: true } });
    expect(runs).toHaveLength(READS.length);
    expect(runs.every((r) => r.captureId !== null)).toBe(true);
    const rows = await t.db.entityChange.findMany({ where: { trackerId }, orderBy: { capturedAt: "asc" } });
    expect(byStep(rows)).toEqual(expectedUnder(LOCKED.missingAfter, LOCKED.rules));
    // The appearances are named in the feed's order, the members gone in one read by key.
    const lines = (step: number) => rows.find((r) => stepOfRun.get(r.runId) === step)?.delta;
    expect(lines(1)).toMatchObject({ appeared: { from: null, to: ["Flat white", "Chai"] } });
    expect(lines(5)).toMatchObject({ disappeared: { from: ["Chai", "Flat white"], to: null } });
    expect(lines(7)).toMatchObject({ appeared: { from: null, to: ["Flat white", "Chai"] } });
  });

  it("replaying the locked definition reproduces the stored roll-ups exactly, with no model call", async () => {
    const plans: TReplayPlan[] = [];
    const requests = models.requests.length;
    const result = await replayTracker(
      t.db,
      { userId, trackerId, definition: "locked", modelBudget: 5, planOnly: false },
      { onPlan: (p) => plans.push(p) },
      { models: { filler: fixtureModel(models.url), judge: fixtureModel(models.url) } },
    );
    // The price moves (reads 2 and 8: three drinks) were left to the agent; rules mode's verdicts stood in.
    expect(plans[0]).toMatchObject({ captures: READS.length, modelCallsNeeded: 0, reusable: 3, version: 1 });
    expect(result.modelCalls).toBe(0);
    expect(models.requests).toHaveLength(requests);
    // Same entries, same order, same lines, verdicts and reasons (the summary text included).
    expect(result.replayed.map(strip)).toEqual(result.recorded.map(strip));
    expect(result.recorded.map((e) => stepOfRun.get(e.runId))).toEqual([0, 1, 2, 3, 5, 7, 8]);
    expect(result).toMatchObject({ added: [], removed: [], changed: [], wouldAsk: 0, cancelled: false });
    expect(result.summary).toBe("would have recorded the same 4 material changes");
    const rows = await t.db.entityChange.findMany({ where: { trackerId }, orderBy: { capturedAt: "asc" } });
    expect(result.replayed.map((e) => [e.materiality, e.delta, e.decisions])).toEqual(
      rows.map((r) => [r.materiality, r.delta, r.decisions]),
    );
    // In words, as the timeline shows them: each line's reason.
    const atStep = (step: number) => result.replayed.find((e) => stepOfRun.get(e.runId) === step);
    expect(atStep(1)?.decisions.appeared).toMatchObject({
      verdict: "material",
      reason: "2 new items: Flat white, Chai",
    });
    expect(atStep(2)?.decisions.changed).toMatchObject({
      verdict: "notable",
      reason: "Latte price $5.00 → $3.90 (−22%); Mocha price $6.00 → $5.70 (−5%)",
    });
  });

  it("a period starts from the capture just before it (read, not reported)", async () => {
    const result = await replayTracker(
      t.db,
      { userId, trackerId, definition: "locked", modelBudget: 0, planOnly: false, from: dayOf(2), to: dayOf(7) },
      {},
      rulesMode,
    );
    // Read 1 lists every drink and none is missing: from it, the period's reads decide as they did.
    expect(result.plan.captures).toBe(6);
    expect(result.replayed.map((e) => stepOfRun.get(e.runId))).toEqual([2, 3, 5, 7]);
    expect(result.replayed.map(strip)).toEqual(result.recorded.map(strip));
  });

  it("a drop rule instead of appear/disappear: exactly the entries the walk says change their verdict", async () => {
    const rules = { appeared: false, disappeared: false, dropPercent: 20 };
    const result = await replayDraft(menuDefinition({ rules }));
    const recorded = expectedUnder(LOCKED.missingAfter, LOCKED.rules);
    const expected = expectedUnder(2, rules);
    expect(byStep(result.replayed)).toEqual(expected);
    expect(byStep(result.recorded)).toEqual(recorded);
    const material = (m: Map<number, string>) => new Map([...m].filter(([, v]) => v === "material"));
    // Material no more: the appearances and the departures; material now: the 22 % drop.
    expect(only(material(recorded), material(expected))).toEqual([1, 5, 7]);
    expect(only(material(expected), material(recorded))).toEqual([2]);
    expect(steps(result.changed)).toEqual([1, 2, 5, 7]);
    expect(result).toMatchObject({ added: [], removed: [] });
    expect(result.counts).toMatchObject({ recordedMaterial: 4, replayedMaterial: 2 });
    expect(result.summary).toMatch(/^would have recorded 2 material changes instead of 4; .*would have missed: .*/);
    const drop = result.replayed.find((e) => stepOfRun.get(e.runId) === 2);
    expect(drop?.decisions.changed).toMatchObject({
      verdict: "material",
      reason: "Latte price dropped by 20% or more: 5 USD → 3.9 USD (−22%)",
    });
  });

  it("missingAfter raised to 3: the departure moves to the third read without them, as the walk says", async () => {
    const result = await replayDraft(menuDefinition({ missingAfter: 3 }));
    const recorded = expectedUnder(LOCKED.missingAfter, LOCKED.rules);
    const expected = expectedUnder(3, LOCKED.rules);
    expect(byStep(result.replayed)).toEqual(expected);
    expect(steps(result.removed)).toEqual(only(recorded, expected));
    expect(steps(result.added)).toEqual(only(expected, recorded));
    expect(steps(result.removed)).toEqual([5]);
    expect(steps(result.added)).toEqual([6]);
    const gone = result.replayed.find((e) => stepOfRun.get(e.runId) === 6);
    expect(gone?.delta).toEqual({
      members: { from: 5, to: 3 },
      disappeared: { from: ["Chai", "Flat white"], to: null },
    });
    expect(gone?.decisions.disappeared?.reason).toBe("2 items gone: Chai, Flat white");
    // The replay wrote nothing.
    expect(await t.db.entityChange.count({ where: { trackerId } })).toBe(recorded.size + 1);
  });

  it("a reworded price: the members' price verdicts need the agent, asked within the budget, the rest 'would ask'", async () => {
    const definition = menuDefinition({ priceDescription: "The drink's price, as a sign of repositioning" });
    const planned = await replayDraft(definition);
    // Reads 2 (Latte, Mocha) and 8 (Mocha): one judge call per changed member, as the refresh makes them.
    expect(planned.plan).toMatchObject({ modelCallsNeeded: 3, modelAvailable: false });
    expect(planned.modelCalls).toBe(0);
    expect(planned.wouldAsk).toBe(2);
    const asked = planned.replayed.filter((e) => e.wouldAsk.length > 0);
    expect(asked.map((e) => [stepOfRun.get(e.runId), e.wouldAsk])).toEqual([
      [2, ["Latte · price", "Mocha · price"]],
      [8, ["Mocha · price"]],
    ]);

    models.setRecordings([
      {
        name: "price verdict",
        match: { schemaName: "change_verdicts" },
        response: { json: { price: { verdict: "material", reason: "A price move is a repositioning." } } },
      },
    ]);
    const model = fixtureModel(models.url);
    const requests = models.requests.length;
    const budgeted = await replayTracker(
      t.db,
      { userId, trackerId, definition: "draft", modelBudget: 1, planOnly: false },
      {},
      { models: { filler: model, judge: model } },
    );
    expect(budgeted.modelCalls).toBe(1);
    expect(models.requests.slice(requests).filter((r) => r.summary.schemaName === "change_verdicts")).toHaveLength(1);
    const second = budgeted.replayed.find((e) => stepOfRun.get(e.runId) === 2);
    // Latte's price was asked (the agent: material, so the roll-up is); Mocha's is left to the agent.
    expect(second).toMatchObject({ materiality: "material", wouldAsk: ["Mocha · price"] });
    expect(budgeted.replayed.find((e) => stepOfRun.get(e.runId) === 8)?.wouldAsk).toEqual(["Mocha · price"]);
  });
});

describe("a set whose captures only reorder it", () => {
  it("records nothing beyond its baseline, and its replay neither", async () => {
    const path = "/replay-set/reordered.rss";
    const base = [latte, mocha, espresso, flat];
    site.setPage(path, { body: rssOf({ items: base }), contentType: RSS });
    const created = await createActiveTracker(t.db, {
      capability: "feed.items",
      capabilityInput: { url: site.urlFor(path) },
      definition: menuDefinition(),
      decision: "Did the café add, drop or reprice any drinks?",
    });
    const id = created.tracker.id;
    // Each read reorders the drinks and renames the feed itself, so each stores a capture of its own.
    const runs = await refreshAll(path, id, [
      { items: base },
      { items: [...base].reverse(), channel: "Café menu (spring)" },
      { items: [flat, espresso, latte, mocha], channel: "Café menu (summer)" },
    ]);
    const captured = await t.db.refreshRun.findMany({ where: { id: { in: runs } }, select: { captureId: true } });
    expect(new Set(captured.map((r) => r.captureId)).size).toBe(3);
    const result = await replayTracker(
      t.db,
      { userId: created.userId, trackerId: id, definition: "locked", modelBudget: 0, planOnly: false },
      {},
      rulesMode,
    );
    expect(result.plan.captures).toBe(3);
    expect(result.replayed.map((e) => [e.runId, e.materiality])).toEqual([[runs[0], "baseline"]]);
    expect(result.replayed.map(strip)).toEqual(result.recorded.map(strip));
  });
});
