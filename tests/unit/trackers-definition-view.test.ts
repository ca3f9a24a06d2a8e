import { describe, expect, it } from "vitest";
import { diffDefinitionViews } from "@/server/trackers";

describe("diffDefinitionViews", () => {
  it("names added, removed, retyped fields and changed rules", () => {
    const f = (name: string, type = "number", rule = `${name}: material on any change`) => ({
      name,
      type,
      description: name,
      rule,
    });
    expect(
      diffDefinitionViews(
        [f("price"), f("rating"), f("stock")],
        [f("price", "integer"), f("rating", "number", "rating: ignored"), f("tagline", "string")],
      ),
    ).toEqual([
      "price: type number → integer",
      "rule changed — rating: ignored (was: rating: material on any change)",
      "added tagline (string)",
      "removed stock",
    ]);
  });
});
