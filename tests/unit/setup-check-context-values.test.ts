import { describe, expect, it } from "vitest";
import { parseDefinition, type TTrackerDefinition } from "@/server/intelligence/definition";
import { checkContextValues } from "@/server/intelligence/setup/check-context-values";

/** The drafter's bound values must be stated by an attached file (docs/context-files.md, "While drafting"): a made-up binding is refused. */

function definition(contextValues: unknown[]): TTrackerDefinition {
  const parsed = parseDefinition({
    fields: [{ name: "price", type: "money", currency: "USD", description: "Price" }],
    identityRule: { kind: "canonical_url" },
    materiality: {},
    contextValues,
    contextRules: [{ field: "price", value: "our_price", when: "drops_below" }],
  });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.definition;
}

const priceList = { name: "price-list.txt", text: "Price list\nour price is 10.00 USD\n" };
const csv = { name: "plans.csv", text: "plan,price\nPro,10.00\n" };

describe("checkContextValues", () => {
  it("accepts a label a file states with a number, and a CSV row and column that exist", () => {
    expect(checkContextValues(definition([{ name: "our_price", label: "our price" }]), [priceList])).toEqual([]);
    expect(
      checkContextValues(definition([{ name: "our_price", label: "our price", file: "Price-List.txt" }]), [priceList]),
    ).toEqual([]);
    expect(
      checkContextValues(definition([{ name: "our_price", label: "Pro", column: "price", file: "plans.csv" }]), [csv]),
    ).toEqual([]);
  });

  it("refuses a value no attached file states, a file that is not attached, and any value with no files", () => {
    expect(checkContextValues(definition([{ name: "our_price", label: "our cost" }]), [priceList])).toEqual([
      "contextValues.0 (our_price): no attached file states “our cost” followed by a number",
    ]);
    expect(
      checkContextValues(definition([{ name: "our_price", label: "our price", file: "other.txt" }]), [priceList]),
    ).toEqual(["contextValues.0 (our_price): no attached file is named “other.txt” (attached: price-list.txt)"]);
    expect(checkContextValues(definition([{ name: "our_price", label: "Team", column: "price" }]), [csv])).toEqual([
      "contextValues.0 (our_price): no attached file has a row “Team” with a column “price”",
    ]);
    expect(checkContextValues(definition([{ name: "our_price", label: "our price" }]), [])).toEqual([
      "contextValues.0 (our_price): no context file is attached to this tracker, so there is nothing to bind",
    ]);
  });
});
