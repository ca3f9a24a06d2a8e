import { describe, expect, it } from "vitest";
import {
  diffSet,
  hashItemValues,
  summarizeSet,
  type TCurrentItem,
  type TItemValues,
  type TPrevEntity,
} from "@/server/intelligence/set";

const policy = { missingAfter: 2, maxEntities: 200 };

function item(key: string, values: TItemValues): TCurrentItem {
  return { key, values, hash: hashItemValues(values) };
}

function known(values: TItemValues, missingRuns = 0, goneAt: string | null = null): TPrevEntity {
  return { values, hash: hashItemValues(values), missingRuns, goneAt };
}

describe("summarizeSet", () => {
  it("puts the counts first, then the named changes", () => {
    const previous = new Map([
      ["blend", known({ name: "Blend & Co", price: "$4.20" })],
      ["acme", known({ name: "Acme", price: "$3.00" }, 1)],
      ["steady", known({ name: "Steady", price: "$2.00" })],
    ]);
    const diff = diffSet(
      previous,
      [
        item("new-1", { name: "New One", price: "$1.00" }),
        item("blend", { name: "Blend & Co", price: "$4.50" }),
        item("steady", { name: "Steady", price: "$2.00" }),
        item("new-2", { name: "New Two", price: "$1.50" }),
      ],
      policy,
    );
    expect(summarizeSet(diff)).toBe("2 new, 1 gone; Blend & Co price $4.20 → $4.50 (+7.1%)");
  });

  it("names three changes and counts the rest, calling items by name, else title, else key", () => {
    const keys = ["k1", "k2", "k3", "k4", "k5"];
    const before: TItemValues[] = [
      { name: "Blend & Co", price: "$4.20" },
      { title: "Morning Brew", price: "$2.00" },
      { price: "$10.00" },
      { name: "Four", price: "$1.00" },
      { name: "Five", price: "$1.00" },
    ];
    const after: TItemValues[] = [
      { name: "Blend & Co", price: "$4.50" },
      { title: "Morning Brew", price: "$1.80" },
      { price: "$10.00", stock: "Sold out" },
      { name: "Four", price: "$1.10" },
      { name: "Five", price: "$1.20" },
    ];
    const previous = new Map(keys.map((k, i) => [k, known(before[i] as TItemValues)]));
    const diff = diffSet(
      previous,
      keys.map((k, i) => item(k, after[i] as TItemValues)),
      policy,
    );
    expect(summarizeSet(diff)).toBe(
      "Blend & Co price $4.20 → $4.50 (+7.1%); Morning Brew price $2.00 → $1.80 (−10%); k3 stock — → Sold out; and 2 more",
    );
    expect(summarizeSet(diff, { maxNamed: 1 })).toBe("Blend & Co price $4.20 → $4.50 (+7.1%); and 4 more");
    expect(summarizeSet(diff, { maxNamed: 0 })).toBe("5 changed");
    // Material changes first, the rest after them in the source's order.
    expect(summarizeSet(diff, { maxNamed: 2, isMaterial: (key) => key === "k5" || key === "k4" })).toBe(
      "Four price $1.00 → $1.10 (+10%); Five price $1.00 → $1.20 (+20%); and 3 more",
    );
  });

  it("lists every moved field of an item, and shortens long texts", () => {
    const long = "A very long description of the roastery that goes on and on";
    const diff = diffSet(
      new Map([["a", known({ name: "Blend & Co", price: "$4.20", rating: "4.5", about: "Short" })]]),
      [item("a", { name: "Blend & Co", price: "$4.20", rating: "4.6", about: long })],
      policy,
    );
    expect(summarizeSet(diff)).toBe(
      "Blend & Co about Short → A very long description of the roastery…, rating 4.5 → 4.6 (+2.2%)",
    );
  });

  it("formats numbers by the definition's fields when given", () => {
    const diff = diffSet(
      new Map([["a", known({ name: "Blend & Co", price: "4.2", stock: "1200" })]]),
      [item("a", { name: "Blend & Co", price: "4.5", stock: "1150" })],
      policy,
    );
    expect(
      summarizeSet(diff, {
        formats: { price: { type: "money", currency: "USD" }, stock: { type: "integer", unit: "units" } },
      }),
    ).toBe("Blend & Co price $4.20 → $4.50 (+7.1%), stock 1,200 units → 1,150 units (−4.2%)");
    const renamed = diffSet(
      new Map([["a", known({ name: "Blend & Co", plan: "Plan 2" })]]),
      [item("a", { name: "Blend & Co", plan: "Plan 3" })],
      policy,
    );
    expect(summarizeSet(renamed, { formats: { plan: { type: "string" } } })).toBe("Blend & Co plan Plan 2 → Plan 3");
  });

  it("counts returning items, and says nothing of items missing once", () => {
    const previous = new Map([
      ["a", known({ name: "Blend & Co" })],
      ["b", known({ name: "Acme" })],
      ["c", known({ name: "Back Again" }, 2, "2025-02-01T00:00:00.000Z")],
    ]);
    expect(summarizeSet(diffSet(previous, [item("a", { name: "Blend & Co" })], policy))).toBe("No change");
    expect(
      summarizeSet(diffSet(previous, [item("a", { name: "Blend & Co" }), item("c", { name: "Back Again" })], policy)),
    ).toBe("1 back");
  });
});
