import { describe, expect, it } from "vitest";
import { parseDefinition, type TRecord, type TTrackerDefinition } from "@/server/intelligence/definition";
import type { TDecision } from "@/server/intelligence/refresh/decide-change";
import {
  buildRollUp,
  diffSet,
  hashItemValues,
  inKeyOrder,
  inSourceOrder,
  judgeMembers,
  memberValues,
  readMembers,
  sourceOrder,
  type TPrevEntity,
} from "@/server/intelligence/set";

/**
 * The set refresh's pure part (docs/sets.md "How the refresh runs a set"), shared with replay (docs/replay.md): a
 * member's values as the diff reads them, the changed members' verdicts coming to material / notable / noise, the
 * roll-up's lines, reasons and entry, and the source's order kept beside a key-sorted capture.
 */

function definition(
  rules: unknown[],
  missingAfter = 2,
): TTrackerDefinition & { set: NonNullable<TTrackerDefinition["set"]> } {
  const parsed = parseDefinition({
    fields: [
      { name: "name", type: "string", description: "Name", extractor: { kind: "json_pointer", pointer: "/name" } },
      {
        name: "price",
        type: "money",
        currency: "USD",
        description: "Price",
        extractor: { kind: "json_pointer", pointer: "/price" },
      },
    ],
    identityRule: { kind: "canonical_url" },
    materiality: { name: { kind: "any_change" }, price: { kind: "ask_agent" } },
    set: { missingAfter, maxEntities: 200, rules },
  });
  if (!parsed.ok || !parsed.definition.set) throw new Error(`bad definition: ${JSON.stringify(parsed)}`);
  return { ...parsed.definition, set: parsed.definition.set };
}

const money = (amount: number) => ({ amount, currency: "USD" });
const record = (name: string, price: number): TRecord => ({ name, price: money(price) });
const known = (def: TTrackerDefinition, r: TRecord, missingRuns = 0, goneAt: string | null = null): TPrevEntity => {
  const values = memberValues(def, r);
  return { values, hash: hashItemValues(values), missingRuns, goneAt };
};
const notable: TDecision = { verdict: "notable", decidedBy: "code", reason: "left to the person" };
const material: TDecision = { verdict: "material", decidedBy: "code", reason: "any change", rule: "any_change" };

describe("memberValues and readMembers", () => {
  it("reads each member's fields by its extractors, money as '<amount> <currency>', the first of a key winning", async () => {
    const def = definition([]);
    const { records, current } = await readMembers(def, [
      { key: "b", values: { name: "Chai", price: "$4.00" } },
      { key: "a", values: { name: "Latte", price: "$5.50" } },
      { key: "b", values: { name: "Chai again", price: "$1.00" } },
    ]);
    expect([...records.keys()]).toEqual(["b", "a"]);
    expect(records.get("b")).toEqual({ name: "Chai", price: money(4) });
    expect(current.map((c) => [c.key, c.values])).toEqual([
      ["b", { name: "Chai", price: "4 USD" }],
      ["a", { name: "Latte", price: "5.5 USD" }],
    ]);
    expect(memberValues(def, { name: null })).toEqual({ name: null, price: null });
  });

  it("inKeyOrder: the known members by key, by code unit", () => {
    const def = definition([]);
    const m = inKeyOrder([
      ["b", known(def, record("B", 1))],
      ["Z", known(def, record("Z", 1))],
      ["a", known(def, record("A", 1))],
    ]);
    expect([...m.keys()]).toEqual(["Z", "a", "b"]);
  });
});

describe("sourceOrder and inSourceOrder", () => {
  it("stores where each member sits in the key-sorted list, and puts the sorted list back", () => {
    const items = [{ key: "m" }, { key: "c" }, { key: "z" }, { key: "a" }];
    const order = sourceOrder(items);
    expect(order).toEqual([2, 1, 3, 0]);
    const sorted = [{ key: "a" }, { key: "c" }, { key: "m" }, { key: "z" }];
    expect(inSourceOrder(sorted, order)).toEqual(items);
  });

  it("keeps repeated keys in their order (a stable sort), and stores nothing when the source was sorted", () => {
    const items = [
      { key: "b", n: 1 },
      { key: "a", n: 2 },
      { key: "b", n: 3 },
    ];
    const order = sourceOrder(items);
    const sorted = [
      { key: "a", n: 2 },
      { key: "b", n: 1 },
      { key: "b", n: 3 },
    ];
    expect(inSourceOrder(sorted, order)).toEqual(items);
    expect(sourceOrder([{ key: "a" }, { key: "b" }])).toBeUndefined();
  });

  it("ignores an order that does not fit the members: they stay sorted", () => {
    const sorted = ["a", "b", "c"];
    expect(inSourceOrder(sorted, [2, 1])).toEqual(sorted);
    expect(inSourceOrder(sorted, [0, 0, 1])).toEqual(sorted);
    expect(inSourceOrder(sorted, [0, 1, 3])).toEqual(sorted);
    expect(inSourceOrder(sorted, undefined)).toEqual(sorted);
  });
});

describe("judgeMembers", () => {
  it("judges each changed member's own deltas; noise is recorded nowhere, material marks the member", async () => {
    const def = definition([]);
    const before: Record<string, TRecord> = { a: record("Latte", 5), b: record("Chai", 4), c: record("Mocha", 6) };
    const after: Record<string, TRecord> = { a: record("Latte", 4), b: record("Chai tea", 4), c: record("Mocha", 6.5) };
    const diff = diffSet(
      new Map(Object.entries(before).map(([k, r]) => [k, known(def, r)])),
      Object.entries(after).map(([key, r]) => ({ key, ...known(def, r) })),
      def.set,
    );
    const asked: [string, string[]][] = [];
    const judged = await judgeMembers({
      def,
      changed: diff.changed,
      before: (key) => before[key] as TRecord,
      after: (key) => after[key] as TRecord,
      judge: async (item, deltas): Promise<Record<string, TDecision>> => {
        asked.push([item.key, Object.keys(deltas)]);
        if (item.key === "a") return { price: notable };
        if (item.key === "b") return { name: material };
        return { price: { verdict: "noise", decidedBy: "agent", reason: "a wobble" } };
      },
    });
    expect(asked).toEqual([
      ["a", ["price"]],
      ["b", ["name"]],
      ["c", ["price"]],
    ]);
    expect(judged.members.map((m) => [m.item.key, m.outcome, Object.keys(m.kept)])).toEqual([
      ["a", "notable", ["price"]],
      ["b", "material", ["name"]],
      ["c", "noise", []],
    ]);
    expect([...judged.recorded]).toEqual(["a", "b"]);
    expect([...judged.material]).toEqual(["b"]);
  });
});

describe("buildRollUp", () => {
  const def = definition([{ kind: "appeared" }, { kind: "disappeared" }]);
  const latte = record("Latte", 5);
  const chai = record("Chai", 4);

  it("the first read is the baseline: the members counted, no reasons on the entry", () => {
    const records = new Map([
      ["a", latte],
      ["b", chai],
    ]);
    const diff = diffSet(
      new Map(),
      [...records].map(([key, r]) => ({ key, ...known(def, r) })),
      def.set,
    );
    const rollUp = buildRollUp({
      def,
      diff,
      first: true,
      before: 0,
      records,
      material: new Set(),
      recorded: new Set(),
    });
    expect(rollUp.entry).toEqual({ materiality: "baseline", delta: { members: { from: null, to: 2 } }, decisions: {} });
    expect(rollUp.summary).toBe("baseline recorded (2 member(s))");
  });

  it("a new member (a set rule) and a changed one: material, each line with its reason, names in the diff's order", () => {
    const previous = new Map([
      ["a", known(def, latte)],
      ["m", known(def, record("Mocha", 6))],
    ]);
    const records = new Map<string, TRecord>([
      ["z", record("Flat white", 4.5)],
      ["b", chai],
      ["a", record("Latte", 3.9)],
      ["m", record("Mocha", 6)],
    ]);
    const diff = diffSet(
      previous,
      [...records].map(([key, r]) => ({ key, ...known(def, r) })),
      def.set,
    );
    const rollUp = buildRollUp({
      def,
      diff,
      first: false,
      before: 2,
      records,
      material: new Set(),
      recorded: new Set(["a"]),
    });
    expect(rollUp.count).toBe(4);
    expect(rollUp.entry?.materiality).toBe("material");
    expect(rollUp.entry?.delta).toEqual({
      members: { from: 2, to: 4 },
      appeared: { from: null, to: ["Flat white", "Chai"] },
      changed: { from: null, to: ["Latte"] },
    });
    expect(rollUp.entry?.decisions).toEqual({
      members: {
        verdict: "notable",
        decidedBy: "code",
        reason: "members listed (one missing for fewer than 2 reads still counts)",
      },
      appeared: { verdict: "material", decidedBy: "code", reason: "2 new items: Flat white, Chai" },
      changed: { verdict: "notable", decidedBy: "code", reason: "2 new; Latte price $5.00 → $3.90 (−22%)" },
    });
    expect(rollUp.summary).toBe("2 new; Latte price $5.00 → $3.90 (−22%)");
  });

  it("a change the member's own rules called noise is no line; with nothing else, no entry", () => {
    const previous = new Map([["a", known(def, latte)]]);
    const records = new Map([["a", record("Latte", 5.1)]]);
    const diff = diffSet(previous, [{ key: "a", ...known(def, record("Latte", 5.1)) }], def.set);
    const rollUp = buildRollUp({
      def,
      diff,
      first: false,
      before: 1,
      records,
      material: new Set(),
      recorded: new Set(),
    });
    expect(rollUp.lines).toEqual({});
    expect(rollUp.entry).toBeNull();
  });

  it("a member gone after missingAfter reads: material by the disappeared rule, notable without it", () => {
    const previous = new Map([
      ["a", known(def, latte)],
      ["b", known(def, chai, 1)],
    ]);
    const records = new Map([["a", latte]]);
    const current = [{ key: "a", ...known(def, latte) }];
    const gone = buildRollUp({
      def,
      diff: diffSet(previous, current, def.set),
      first: false,
      before: 2,
      records,
      material: new Set(),
      recorded: new Set(),
    });
    expect(gone.entry).toMatchObject({
      materiality: "material",
      delta: { members: { from: 2, to: 1 }, disappeared: { from: ["Chai"], to: null } },
      decisions: { disappeared: { verdict: "material", reason: "1 item gone: Chai" } },
    });
    const lenient = definition([{ kind: "appeared" }]);
    const quiet = buildRollUp({
      def: lenient,
      diff: diffSet(previous, current, lenient.set),
      first: false,
      before: 2,
      records,
      material: new Set(),
      recorded: new Set(),
    });
    expect(quiet.entry).toMatchObject({
      materiality: "notable",
      decisions: { disappeared: { verdict: "notable", reason: "not listed for 2 reads in a row" } },
    });
  });

  it("a member's own material change makes the roll-up material, and a drop rule names the move", () => {
    const drop = definition([{ kind: "any_item_drop", field: "price", minPercent: 20 }]);
    const previous = new Map([["a", known(drop, latte)]]);
    const records = new Map([["a", record("Latte", 3.9)]]);
    const diff = diffSet(previous, [{ key: "a", ...known(drop, record("Latte", 3.9)) }], drop.set);
    const byRule = buildRollUp({
      def: drop,
      diff,
      first: false,
      before: 1,
      records,
      material: new Set(),
      recorded: new Set(["a"]),
    });
    expect(byRule.entry?.materiality).toBe("material");
    expect(byRule.entry?.decisions.changed?.reason).toBe("Latte price dropped by 20% or more: 5 USD → 3.9 USD (−22%)");
    const noRule = definition([]);
    const byMember = buildRollUp({
      def: noRule,
      diff: diffSet(previous, [{ key: "a", ...known(noRule, record("Latte", 3.9)) }], noRule.set),
      first: false,
      before: 1,
      records,
      material: new Set(["a"]),
      recorded: new Set(["a"]),
    });
    expect(byMember.entry?.materiality).toBe("material");
    expect(byMember.entry?.decisions.changed).toMatchObject({ verdict: "material", reason: byMember.summary });
  });
});
