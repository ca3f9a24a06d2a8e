import { describe, expect, it } from "vitest";
import { describeSetRule, formatDistance } from "@/contracts/definition/describe-set-rule";
import { type TSetRule, ZSetPolicySchema, ZSetRuleSchema } from "@/contracts/definition/set-rule-schema";
import {
  diffSet,
  hashItemValues,
  judgeSet,
  type TCurrentItem,
  type TItemValues,
  type TPrevEntity,
  type TSetDiff,
} from "@/server/intelligence/set";

const policy = { missingAfter: 2, maxEntities: 200 };
const none = () => false;
const all = () => true;

function item(key: string, values: TItemValues): TCurrentItem {
  return { key, values, hash: hashItemValues(values) };
}

function known(values: TItemValues, missingRuns = 0, goneAt: string | null = null): TPrevEntity {
  return { values, hash: hashItemValues(values), missingRuns, goneAt };
}

/** The diff of one item "a" whose price moves from → to. */
function priceMove(from: string, to: string): TSetDiff {
  return diffSet(
    new Map([["a", known({ name: "Blend & Co", price: from })]]),
    [item("a", { name: "Blend & Co", price: to })],
    policy,
  );
}

const drop10: TSetRule = { kind: "any_item_drop", field: "price", minPercent: 10 };
const rise10: TSetRule = { kind: "any_item_rise", field: "price", minPercent: 10 };

describe("ZSetPolicySchema", () => {
  it("fills in the defaults: gone after 2 missing reads, at most 200 items, no rules", () => {
    expect(ZSetPolicySchema.parse({})).toEqual({ missingAfter: 2, maxEntities: 200, rules: [] });
  });

  it("accepts each rule kind and refuses out-of-range values", () => {
    const rules: TSetRule[] = [
      drop10,
      rise10,
      { kind: "items_changed_at_least", count: 3 },
      { kind: "appeared", withinMeters: 500 },
      { kind: "appeared" },
      { kind: "disappeared" },
    ];
    expect(ZSetPolicySchema.parse({ missingAfter: 1, maxEntities: 5000, rules }).rules).toEqual(rules);
    expect(ZSetPolicySchema.safeParse({ missingAfter: 0 }).success).toBe(false);
    expect(ZSetPolicySchema.safeParse({ missingAfter: 21 }).success).toBe(false);
    expect(ZSetPolicySchema.safeParse({ missingAfter: 1.5 }).success).toBe(false);
    expect(ZSetPolicySchema.safeParse({ maxEntities: 0 }).success).toBe(false);
    expect(ZSetPolicySchema.safeParse({ maxEntities: 5001 }).success).toBe(false);
    expect(ZSetRuleSchema.safeParse({ kind: "any_item_drop", field: "price", minPercent: 0 }).success).toBe(false);
    expect(ZSetRuleSchema.safeParse({ kind: "any_item_drop", field: "price", minPercent: 101 }).success).toBe(false);
    expect(ZSetRuleSchema.safeParse({ kind: "any_item_rise", field: "price", minPercent: 250 }).success).toBe(true);
    expect(ZSetRuleSchema.safeParse({ kind: "any_item_drop", field: "Price", minPercent: 5 }).success).toBe(false);
    expect(ZSetRuleSchema.safeParse({ kind: "items_changed_at_least", count: 0 }).success).toBe(false);
    expect(ZSetRuleSchema.safeParse({ kind: "appeared", withinMeters: -1 }).success).toBe(false);
    expect(ZSetRuleSchema.safeParse({ kind: "disappeared", after: 3 }).success).toBe(false);
    expect(ZSetRuleSchema.safeParse({ kind: "price_war" }).success).toBe(false);
  });
});

describe("describeSetRule", () => {
  it("says each rule in one sentence", () => {
    expect(describeSetRule(drop10)).toBe("material when any item's price drops by 10% or more");
    expect(describeSetRule({ ...rise10, minPercent: 12.5 })).toBe(
      "material when any item's price rises by 12.5% or more",
    );
    expect(describeSetRule({ kind: "items_changed_at_least", count: 3 })).toBe(
      "material when 3 or more items change in one check",
    );
    expect(describeSetRule({ kind: "items_changed_at_least", count: 1 })).toBe("material when any item changes");
    expect(describeSetRule({ kind: "appeared" })).toBe("material when a new item appears");
    expect(describeSetRule({ kind: "appeared", withinMeters: 500 })).toBe(
      "material when a new item appears within 500 m",
    );
    expect(describeSetRule({ kind: "appeared", withinMeters: 1500 })).toBe(
      "material when a new item appears within 1.5 km",
    );
    expect(describeSetRule({ kind: "disappeared" })).toBe("material when an item is gone");
    expect(describeSetRule({ kind: "disappeared" }, 2)).toBe(
      "material when an item is gone (missing from 2 reads in a row)",
    );
    expect(describeSetRule({ kind: "disappeared" }, 1)).toBe("material when an item is gone (missing from one read)");
    expect(formatDistance(320)).toBe("320 m");
    expect(formatDistance(12_345)).toBe("12.35 km");
  });
});

describe("judgeSet: any_item_drop and any_item_rise", () => {
  it("fires on a 10% drop at a 10% threshold, and not on 9.9%", () => {
    expect(judgeSet(priceMove("$10.00", "$9.01"), { rules: [drop10] }, none)).toEqual({ material: false, reasons: [] });
    expect(judgeSet(priceMove("$10.00", "$9.00"), { rules: [drop10] }, none)).toEqual({
      material: true,
      reasons: ["Blend & Co price dropped by 10% or more: $10.00 → $9.00 (−10%)"],
    });
  });

  it("reads float-noisy moves at the threshold as the threshold (4.50 → 4.05 is −10%)", () => {
    expect(judgeSet(priceMove("$4.50", "$4.05"), { rules: [drop10] }, none).material).toBe(true);
    // A move just past the threshold is shown with the decimals that tell it apart, not rounded onto it.
    expect(judgeSet(priceMove("$100.00", "$89.96"), { rules: [drop10] }, none)).toEqual({
      material: true,
      reasons: ["Blend & Co price dropped by 10% or more: $100.00 → $89.96 (−10.04%)"],
    });
  });

  it("fires on a 10% rise at a 10% threshold, and not on 9.9%", () => {
    expect(judgeSet(priceMove("$10.00", "$10.99"), { rules: [rise10] }, none).material).toBe(false);
    expect(judgeSet(priceMove("$10.00", "$11.00"), { rules: [rise10] }, none)).toEqual({
      material: true,
      reasons: ["Blend & Co price rose by 10% or more: $10.00 → $11.00 (+10%)"],
    });
  });

  it("counts only the rule's direction, field and currency", () => {
    expect(judgeSet(priceMove("$10.00", "$12.00"), { rules: [drop10] }, none).material).toBe(false);
    expect(judgeSet(priceMove("$10.00", "$8.00"), { rules: [rise10] }, none).material).toBe(false);
    expect(judgeSet(priceMove("$10.00", "€5.00"), { rules: [drop10] }, none).material).toBe(false);
    expect(judgeSet(priceMove("$10.00", "sold out"), { rules: [drop10] }, none).material).toBe(false);
    expect(judgeSet(priceMove("$10.00", "$5.00"), { rules: [{ ...drop10, field: "rating" }] }, none).material).toBe(
      false,
    );
  });

  it("reads plain numbers and other currencies' spellings, and a rise from 0 as infinite", () => {
    expect(judgeSet(priceMove("4.5", "4.0"), { rules: [drop10] }, none).reasons).toEqual([
      "Blend & Co price dropped by 10% or more: 4.5 → 4.0 (−11.1%)",
    ]);
    expect(judgeSet(priceMove("1.299,00 €", "1.099,00 €"), { rules: [drop10] }, none).material).toBe(true);
    expect(judgeSet(priceMove("$0.00", "$1.00"), { rules: [rise10] }, none).reasons).toEqual([
      "Blend & Co price rose by 10% or more: $0.00 → $1.00 (from 0)",
    ]);
  });

  it("names the biggest moves first when several items move, and counts the rest", () => {
    const previous = new Map(
      ["a", "b", "c", "d", "e"].map((k) => [k, known({ name: `Shop ${k.toUpperCase()}`, price: "$10.00" })]),
    );
    const read = [
      item("a", { name: "Shop A", price: "$8.50" }),
      item("b", { name: "Shop B", price: "$7.00" }),
      item("c", { name: "Shop C", price: "$9.50" }), // −5%: under the threshold
      item("d", { name: "Shop D", price: "$9.00" }),
      item("e", { name: "Shop E", price: "$8.00" }),
    ];
    expect(judgeSet(diffSet(previous, read, policy), { rules: [drop10] }, none).reasons).toEqual([
      "price dropped by 10% or more on 4 items: Shop B $10.00 → $7.00 (−30%), Shop E $10.00 → $8.00 (−20%), Shop A $10.00 → $8.50 (−15%) and 1 more",
    ]);
  });
});

describe("judgeSet: items_changed_at_least", () => {
  const previous = new Map([
    ["a", known({ name: "A", price: "$1.00" })],
    ["b", known({ name: "B", price: "$2.00" })],
    ["c", known({ name: "C", price: "$3.00" })],
  ]);
  const diff = diffSet(
    previous,
    [
      item("a", { name: "A", price: "$1.10" }),
      item("b", { name: "B", price: "$2.10" }),
      item("c", { name: "C", price: "$3.00" }),
    ],
    policy,
  );
  const rule: TSetRule = { kind: "items_changed_at_least", count: 2 };

  it("counts only the items whose own field rules recorded the change (noise does not count)", () => {
    expect(diff.changed.map((c) => c.key)).toEqual(["a", "b"]);
    expect(judgeSet(diff, { rules: [rule] }, (key) => key === "a")).toEqual({ material: false, reasons: [] });
    expect(judgeSet(diff, { rules: [rule] }, all)).toEqual({
      material: true,
      reasons: ["2 items changed (at least 2): A, B"],
    });
    expect(judgeSet(diff, { rules: [{ ...rule, count: 3 }] }, all).material).toBe(false);
  });
});

describe("judgeSet: appeared and disappeared", () => {
  const previous = new Map([
    ["old", known({ name: "Old Place", distance_meters: "100" })],
    ["gone", known({ name: "Gone Place", distance_meters: "50" }, 2, "2025-02-01T00:00:00.000Z")],
  ]);
  const read = [
    item("old", { name: "Old Place", distance_meters: "100" }),
    item("near", { name: "Near Cafe", distance_meters: "500" }),
    item("far", { name: "Far Cafe", distance_meters: "500.5" }),
    item("nowhere", { name: "Unknown Cafe" }),
    item("gone", { name: "Gone Place", distance_meters: "50" }),
  ];
  const diff = diffSet(previous, read, policy);

  it("fires on any new or returning item without a distance limit", () => {
    expect(judgeSet(diff, { rules: [{ kind: "appeared" }] }, none)).toEqual({
      material: true,
      reasons: ["4 new items: Near Cafe, Far Cafe, Unknown Cafe and 1 more"],
    });
    expect(
      judgeSet(diffSet(previous, read.slice(0, 1), policy), { rules: [{ kind: "appeared" }] }, none).material,
    ).toBe(false);
  });

  it("with withinMeters, counts only items at that distance or nearer; one without a distance does not count", () => {
    expect(judgeSet(diff, { rules: [{ kind: "appeared", withinMeters: 500 }] }, none)).toEqual({
      material: true,
      reasons: ["2 new items within 500 m: Near Cafe (500 m), Gone Place (back) (50 m)"],
    });
    expect(judgeSet(diff, { rules: [{ kind: "appeared", withinMeters: 40 }] }, none)).toEqual({
      material: false,
      reasons: [],
    });
  });

  it("fires on an item gone after missingAfter reads, never on one missing once", () => {
    const state = new Map([
      ["a", known({ name: "Blend & Co" })],
      ["b", known({ name: "Acme" })],
    ]);
    const rules: TSetRule[] = [{ kind: "disappeared" }];
    const once = diffSet(state, [item("a", { name: "Blend & Co" })], policy);
    expect(once.missing).toEqual([{ key: "b", missingRuns: 1 }]);
    expect(judgeSet(once, { rules }, none)).toEqual({ material: false, reasons: [] });

    state.set("b", known({ name: "Acme" }, 1));
    const twice = diffSet(state, [item("a", { name: "Blend & Co" })], policy);
    expect(judgeSet(twice, { rules }, none)).toEqual({ material: true, reasons: ["1 item gone: Acme"] });
  });
});

describe("judgeSet", () => {
  it("is not material without rules, and gives one reason per rule that fired, in the rules' order", () => {
    const diff = diffSet(
      new Map([
        ["a", known({ name: "Blend & Co", price: "$4.50" })],
        ["b", known({ name: "Acme", price: "$2.00" }, 1)],
      ]),
      [item("a", { name: "Blend & Co", price: "$4.05" }), item("n", { name: "New Shop", price: "$1.00" })],
      policy,
    );
    expect(judgeSet(diff, { rules: [] }, all)).toEqual({ material: false, reasons: [] });
    expect(
      judgeSet(
        diff,
        {
          rules: [
            { kind: "disappeared" },
            { kind: "appeared" },
            drop10,
            rise10,
            { kind: "items_changed_at_least", count: 1 },
          ],
        },
        all,
      ),
    ).toEqual({
      material: true,
      reasons: [
        "1 item gone: Acme", // missing a second read in a row
        "1 new item: New Shop",
        "Blend & Co price dropped by 10% or more: $4.50 → $4.05 (−10%)",
        "1 item changed (at least 1): Blend & Co",
      ],
    });
  });
});
