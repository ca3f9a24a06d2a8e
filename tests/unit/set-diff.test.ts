import { describe, expect, it } from "vitest";
import {
  applySetDiff,
  diffSet,
  hashItemValues,
  hashSet,
  type TCurrentItem,
  type TItemValues,
  type TPrevEntity,
  type TSetDiff,
} from "@/server/intelligence/set";
import { seededRandom } from "../bench/stats";

const policy = { missingAfter: 2, maxEntities: 200 };
const AT = "2025-03-01T10:00:00.000Z";

function item(key: string, values: TItemValues): TCurrentItem {
  return { key, values, hash: hashItemValues(values) };
}

function known(values: TItemValues, missingRuns = 0, goneAt: string | null = null): TPrevEntity {
  return { values, hash: hashItemValues(values), missingRuns, goneAt };
}

const a = { name: "Blend & Co", price: "$4.20" };
const b = { name: "Acme Roasters", price: "$9.00" };
const c = { name: "Foo Coffee", price: "$3.10" };

/** The previous state of a read of [a, b, c]. */
function abc(): Map<string, TPrevEntity> {
  return new Map([
    ["a", known(a)],
    ["b", known(b)],
    ["c", known(c)],
  ]);
}

describe("diffSet", () => {
  it("reports every item of a first read as appeared, in the source's order", () => {
    const diff = diffSet(new Map(), [item("b", b), item("a", a)], policy);
    expect(diff.appeared.map((i) => i.key)).toEqual(["b", "a"]);
    expect(diff.appeared[0]).toEqual({ key: "b", values: b, hash: hashItemValues(b) });
    expect(diff).toMatchObject({ unchanged: 0, changed: [], missing: [], disappeared: [], reappeared: [] });
    expect(diff.overCap).toBeNull();
    expect(diff.hash).toBe(hashSet([item("a", a), item("b", b)]));
  });

  it("finds nothing in a reordered set: items are matched by key, never position", () => {
    const diff = diffSet(abc(), [item("c", c), item("a", a), item("b", b)], policy);
    expect(diff).toEqual({
      hash: hashSet([item("a", a), item("b", b), item("c", c)]),
      appeared: [],
      reappeared: [],
      changed: [],
      unchanged: 3,
      rehashed: [],
      missing: [],
      disappeared: [],
      recovered: [],
      duplicates: 0,
      overCap: null,
    });
  });

  it("reports a changed item with each moved field's before and after, and re-wrapped text as no change", () => {
    const now = { name: " Blend &  Co ", price: "$4.50", stock: "In stock" };
    const diff = diffSet(abc(), [item("a", now), item("b", { ...b, name: "Acme\nRoasters" }), item("c", c)], policy);
    expect(diff.changed).toEqual([
      {
        key: "a",
        before: a,
        values: now,
        hash: hashItemValues(now),
        changes: [
          { field: "price", from: "$4.20", to: "$4.50" },
          { field: "stock", from: null, to: "In stock" },
        ],
      },
    ]);
    expect(diff.unchanged).toBe(2);
    expect(diff.rehashed).toEqual([]); // the whitespace-only edit of b hashes the same
  });

  it("counts an item as gone only after missingAfter reads in a row without it, and reports it gone once", () => {
    let state = abc();
    const first = diffSet(state, [item("a", a), item("b", b)], policy);
    expect(first.missing).toEqual([{ key: "c", missingRuns: 1 }]);
    expect(first.disappeared).toEqual([]);
    state = applySetDiff(state, first, AT);
    expect(state.get("c")).toEqual({ ...known(c), missingRuns: 1 });

    const second = diffSet(state, [item("a", a), item("b", b)], policy);
    expect(second.missing).toEqual([]);
    expect(second.disappeared).toEqual([{ key: "c", missingRuns: 2, values: c }]);
    state = applySetDiff(state, second, AT);
    expect(state.get("c")).toEqual({ ...known(c), missingRuns: 2, goneAt: AT });

    const third = diffSet(state, [item("a", a), item("b", b)], policy);
    expect(third.missing).toEqual([]);
    expect(third.disappeared).toEqual([]);
    expect(third.unchanged).toBe(2);
  });

  it("treats a one-read miss as no churn: back the next read, its streak resets and it is not an appearance", () => {
    let state = abc();
    state = applySetDiff(state, diffSet(state, [item("a", a), item("b", b)], policy), AT);
    const back = diffSet(state, [item("a", a), item("b", b), item("c", c)], policy);
    expect(back.appeared).toEqual([]);
    expect(back.reappeared).toEqual([]);
    expect(back.recovered).toEqual(["c"]);
    expect(back.unchanged).toBe(3);
    state = applySetDiff(state, back, AT);
    expect(state.get("c")?.missingRuns).toBe(0);
    // The streak starts again from 0: one more miss is still not gone.
    expect(diffSet(state, [item("a", a), item("b", b)], policy).missing).toEqual([{ key: "c", missingRuns: 1 }]);
  });

  it("reports a gone item that is back as reappeared, with when it went", () => {
    const state = new Map([
      ["a", known(a)],
      ["c", known(c, 2, AT)],
    ]);
    const diff = diffSet(state, [item("c", { ...c, price: "$3.50" }), item("a", a)], policy);
    expect(diff.reappeared).toEqual([
      { key: "c", values: { ...c, price: "$3.50" }, hash: hashItemValues({ ...c, price: "$3.50" }), goneAt: AT },
    ]);
    expect(diff.appeared).toEqual([]);
    expect(diff.changed).toEqual([]);
    expect(applySetDiff(state, diff, "2025-03-02T10:00:00.000Z").get("c")).toEqual({
      values: { ...c, price: "$3.50" },
      hash: hashItemValues({ ...c, price: "$3.50" }),
      missingRuns: 0,
      goneAt: null,
    });
  });

  it("with missingAfter 1, an item is gone at its first miss", () => {
    const diff = diffSet(abc(), [item("a", a)], { missingAfter: 1, maxEntities: 200 });
    expect(diff.disappeared.map((d) => [d.key, d.missingRuns])).toEqual([
      ["b", 1],
      ["c", 1],
    ]);
    expect(diff.missing).toEqual([]);
  });

  it("keeps the first maxEntities items past the cap and says so", () => {
    const listing = Array.from({ length: 340 }, (_, i) => item(`k${i}`, { name: `Item ${i}`, price: "$1.00" }));
    const diff = diffSet(new Map(), listing, policy);
    expect(diff.appeared).toHaveLength(200);
    expect(diff.appeared.at(-1)?.key).toBe("k199");
    expect(diff.overCap).toEqual({
      listed: 340,
      kept: 200,
      dropped: 140,
      droppedKnown: [],
      message:
        "The page lists 340 items; this tracker keeps the first 200 (raise the cap in the tracker's set policy, maxEntities, up to 5,000).",
    });
    expect(diff.hash).toBe(hashSet(listing.slice(0, 200)));
  });

  it("does not call a known item pushed past the cap missing: it is still listed", () => {
    const state = new Map([
      ["a", known(a)],
      ["b", known(b, 1)],
    ]);
    const diff = diffSet(state, [item("c", c), item("a", a), item("b", { ...b, price: "$1.00" })], {
      missingAfter: 2,
      maxEntities: 2,
    });
    expect(diff.appeared.map((i) => i.key)).toEqual(["c"]);
    expect(diff.unchanged).toBe(1);
    expect(diff.changed).toEqual([]); // past the cap: not read, so not judged
    expect(diff.missing).toEqual([]);
    expect(diff.recovered).toEqual(["b"]);
    expect(diff.overCap).toMatchObject({ listed: 3, kept: 2, dropped: 1, droppedKnown: ["b"] });
    expect(applySetDiff(state, diff, AT).get("b")).toEqual(known(b)); // streak ended, values as they were
  });

  it("says the cap is already the most when maxEntities is 5,000", () => {
    const listing = Array.from({ length: 5001 }, (_, i) => item(`k${i}`, { name: `Item ${i}` }));
    expect(diffSet(new Map(), listing, { missingAfter: 2, maxEntities: 5000 }).overCap?.message).toBe(
      "The page lists 5,001 items; this tracker keeps the first 5,000 (the most a tracker can keep).",
    );
  });

  it("keeps the first of a duplicated key and counts the rest", () => {
    const diff = diffSet(new Map(), [item("a", a), item("a", { ...a, price: "$1.00" }), item("b", b)], {
      missingAfter: 2,
      maxEntities: 2,
    });
    expect(diff.appeared).toEqual([item("a", a), item("b", b)]);
    expect(diff.duplicates).toBe(1);
    expect(diff.overCap).toBeNull(); // a duplicate takes no place under the cap
  });

  it("reports a moved hash over equal values as unchanged, to be rewritten", () => {
    const state = new Map([["a", { ...known(a), hash: "an-older-hash" }]]);
    const diff = diffSet(state, [item("a", a)], policy);
    expect(diff.unchanged).toBe(1);
    expect(diff.changed).toEqual([]);
    expect(diff.rehashed).toEqual([item("a", a)]);
    expect(applySetDiff(state, diff, AT).get("a")?.hash).toBe(hashItemValues(a));
  });
});

describe("hashItemValues and hashSet", () => {
  it("hash an item the same whatever its key order, wrapping, or empty values", () => {
    const hash = hashItemValues({ name: "Blend & Co", price: "$4.20" });
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashItemValues({ price: "$4.20", name: "Blend  &\nCo " })).toBe(hash);
    expect(hashItemValues({ price: "$4.20", name: "Blend & Co", stock: null, note: " " })).toBe(hash);
    expect(hashItemValues({ name: "Blend & Co", price: "$4.50" })).not.toBe(hash);
  });

  it("hash a set the same in any order, and differently when one item moves", () => {
    const items = [item("a", a), item("b", b), item("c", c)];
    const hash = hashSet(items);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSet([items[2], items[0], items[1]] as TCurrentItem[])).toBe(hash);
    expect(hashSet([...items, item("a", { ...a, price: "$0.01" })])).toBe(hash); // the first of a key wins
    expect(hashSet([item("a", a), item("b", b)])).not.toBe(hash);
    expect(hashSet([item("a", a), item("b", b), item("c", { ...c, price: "$3.20" })])).not.toBe(hash);
    expect(hashSet([item("a", a), item("b", b), item("d", c)])).not.toBe(hash);
  });
});

describe("diffSet over random sequences of reads", () => {
  const KEYS = ["a", "b", "c", "d", "e", "f", "g", "h"];
  const PRICES = ["$1.00", "$2.00", "$3.00"];
  // Same price, other wrapping: never a change.
  const spellings = (p: string) => [p, ` ${p}`, `${p}\n`];

  it("holds its invariants: counts add up, an item is gone exactly once per absence streak reaching missingAfter", () => {
    const seen = { appeared: 0, reappeared: 0, changed: 0, missing: 0, disappeared: 0, recovered: 0, droppedKnown: 0 };
    for (let seed = 1; seed <= 120; seed++) {
      const rnd = seededRandom(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
      const missingAfter = 1 + Math.floor(rnd() * 3);
      const maxEntities = 3 + Math.floor(rnd() * 7);
      const diffPolicy = { missingAfter, maxEntities };

      // A reference model of what each key should be, kept independently of diffSet.
      const model = new Map<string, { price: number; streak: number; gone: boolean }>();
      let state = new Map<string, TPrevEntity>();
      let expectedGone = 0;
      let reportedGone = 0;

      for (let step = 0; step < 30; step++) {
        const listed = KEYS.filter(() => rnd() < 0.6).sort(() => rnd() - 0.5);
        const prices = new Map(listed.map((k) => [k, Math.floor(rnd() * PRICES.length)]));
        const read: TCurrentItem[] = listed.map((k) =>
          item(k, { name: `Item ${k}`, price: pick(spellings(PRICES[prices.get(k) ?? 0] as string)) }),
        );
        if (listed.length > 0 && rnd() < 0.2) read.push(item(listed[0] as string, { name: "dup", price: "$9.99" }));
        const kept = listed.slice(0, maxEntities);
        const beyond = new Set(listed.slice(maxEntities));
        const liveBefore = [...model.values()].filter((m) => !m.gone).length;

        const diff: TSetDiff = diffSet(state, read, diffPolicy);
        const context = `seed ${seed} step ${step}`;

        // Every kept item is exactly one of: new, back, changed, unchanged.
        expect(diff.appeared.length + diff.reappeared.length + diff.changed.length + diff.unchanged, context).toBe(
          kept.length,
        );
        // Every known live item is exactly one of: changed, unchanged, missing, gone, past the cap.
        expect(
          diff.changed.length +
            diff.unchanged +
            diff.missing.length +
            diff.disappeared.length +
            (diff.overCap?.droppedKnown.length ?? 0),
          context,
        ).toBe(liveBefore);
        expect(diff.hash, context).toBe(hashSet(read.filter((i) => kept.includes(i.key))));

        // The reference model's expectations for this read.
        const appeared: string[] = [];
        const reappeared: string[] = [];
        const changed: string[] = [];
        const missing: [string, number][] = [];
        const disappeared: string[] = [];
        for (const key of kept) {
          const m = model.get(key);
          const price = prices.get(key) ?? 0;
          if (!m) appeared.push(key);
          else if (m.gone) reappeared.push(key);
          else if (m.price !== price) changed.push(key);
          model.set(key, { price, streak: 0, gone: false });
        }
        for (const [key, m] of model) {
          if (kept.includes(key) || m.gone) continue;
          if (beyond.has(key)) {
            m.streak = 0;
            continue;
          }
          m.streak++;
          if (m.streak === missingAfter) {
            m.gone = true;
            disappeared.push(key);
            expectedGone++;
          } else missing.push([key, m.streak]);
        }
        reportedGone += diff.disappeared.length;
        seen.appeared += diff.appeared.length;
        seen.reappeared += diff.reappeared.length;
        seen.changed += diff.changed.length;
        seen.missing += diff.missing.length;
        seen.disappeared += diff.disappeared.length;
        seen.recovered += diff.recovered.length;
        seen.droppedKnown += diff.overCap?.droppedKnown.length ?? 0;

        expect(
          diff.appeared.map((i) => i.key),
          context,
        ).toEqual(appeared);
        expect(
          diff.reappeared.map((i) => i.key),
          context,
        ).toEqual(reappeared);
        expect(
          diff.changed.map((i) => i.key),
          context,
        ).toEqual(changed);
        expect(diff.missing.map((i) => [i.key, i.missingRuns]).sort(), context).toEqual(missing.sort());
        expect(diff.disappeared.map((i) => i.key).sort(), context).toEqual(disappeared.sort());

        state = applySetDiff(state, diff, `step-${step}`);
        for (const [key, m] of model) {
          expect(state.get(key)?.goneAt !== null, `${context} ${key} gone`).toBe(m.gone);
          if (!m.gone) expect(state.get(key)?.missingRuns, `${context} ${key} streak`).toBe(m.streak);
        }
      }
      expect(reportedGone, `seed ${seed}`).toBe(expectedGone);
    }
    // The sequences reached every outcome, so the checks above were not vacuous.
    for (const [outcome, count] of Object.entries(seen)) expect(count, outcome).toBeGreaterThan(20);
  });
});
