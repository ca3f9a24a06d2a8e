import { describe, expect, it } from "vitest";
import type { TRecord, TTrackerDefinition } from "@/server/intelligence/definition";
import { diffRecords } from "@/server/intelligence/diff";
import { evaluateDeltas } from "@/server/intelligence/materiality";

const def: TTrackerDefinition = {
  fields: [
    { name: "rating", type: "number", description: "r" },
    { name: "price", type: "money", description: "p", currency: "USD" },
    { name: "hours", type: "string_list", description: "h" },
    { name: "description", type: "string", description: "d" },
    { name: "open", type: "boolean", description: "o" },
  ],
  identityRule: { kind: "place_id" },
  materiality: { rating: { kind: "numeric", absolute: 0.2 } },
};

const base: TRecord = {
  rating: 4.4,
  price: { amount: 12, currency: "USD" },
  hours: ["Mon 9-5", "Tue 9-5"],
  description: "A cosy bistro",
  open: true,
  notable_signals: ["New chef announced"],
};

describe("diffRecords", () => {
  it("finds no deltas between equal records, however they are written", () => {
    const same: TRecord = {
      rating: 4.4 + 1e-14, // float noise is not a change
      price: { amount: 12.0, currency: "usd" },
      hours: ["Tue  9-5", " Mon 9-5"], // a list is a set
      description: "A  cosy\nbistro ",
      open: true,
      notable_signals: ["new chef announced."],
    };
    expect(diffRecords(base, same, def)).toEqual({});
  });

  it("reports only real changes, with the records' own values", () => {
    const next: TRecord = { ...base, rating: 4.3, price: { amount: 12, currency: "EUR" }, open: false };
    expect(diffRecords(base, next, def)).toEqual({
      rating: { from: 4.4, to: 4.3 },
      price: { from: { amount: 12, currency: "USD" }, to: { amount: 12, currency: "EUR" } },
      open: { from: true, to: false },
    });
  });

  it('treats a value appearing or disappearing as a change, but [] and "" as absent', () => {
    expect(diffRecords(base, { ...base, rating: null }, def)).toEqual({ rating: { from: 4.4, to: null } });
    expect(
      diffRecords({ ...base, hours: null, description: null }, { ...base, hours: [], description: " " }, def),
    ).toEqual({});
  });

  it("reports only newly added notable signals, case- and whitespace-insensitively", () => {
    const next: TRecord = {
      ...base,
      notable_signals: ["NEW CHEF  announced", "Closed for renovation in May", "closed for renovation in may"],
    };
    expect(diffRecords(base, next, def)).toEqual({
      notable_signals: { from: [], to: ["Closed for renovation in May"] },
    });
  });

  it("first run: every present field is a delta from null", () => {
    const deltas = diffRecords(null, { ...base, open: null }, def);
    expect(Object.keys(deltas)).toEqual(["rating", "price", "hours", "description", "notable_signals"]);
    expect(deltas.notable_signals).toEqual({ from: [], to: ["New chef announced"] });
  });

  it("slow drift: against the kept baseline 4.4, a later 4.2 is a Δ0.2 and crosses the threshold", () => {
    // Run 1: 4.4 → 4.3 is noise, so the caller keeps 4.4 as the baseline.
    const tick = evaluateDeltas(diffRecords(base, { ...base, rating: 4.3 }, def), def);
    expect(tick.rating?.verdict).toBe("noise");
    // Run 2: 4.2 is compared with the baseline 4.4, not with the last seen 4.3.
    const drift = diffRecords(base, { ...base, rating: 4.2 }, def);
    expect(drift).toEqual({ rating: { from: 4.4, to: 4.2 } });
    expect(evaluateDeltas(drift, def).rating).toMatchObject({
      verdict: "material",
      reason: "rating: −0.2 ≥ 0.2 → material",
    });
  });
});
