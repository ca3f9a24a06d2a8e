import { readFileSync } from "node:fs";

/** A feed fixture's text (tests/fixtures/feeds/README.md says what each holds). */
export const feedFixture = (name: string) => readFileSync(`tests/fixtures/feeds/${name}`, "utf8");
export const RSS = "application/rss+xml; charset=utf-8";

/**
 * The changelog's entries watched as a set (docs/sets.md): each entry's title and summary read by JSON pointer; new
 * and gone entries are material by the set's rules, and so is an edited title.
 */
export const feedSetDefinition = (overrides: { maxEntities?: number; missingAfter?: number } = {}) => ({
  fields: [
    {
      name: "title",
      type: "string",
      description: "The entry's title",
      extractor: { kind: "json_pointer", pointer: "/title" },
    },
    {
      name: "summary",
      type: "string",
      description: "What it says",
      extractor: { kind: "json_pointer", pointer: "/summary" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { title: { kind: "any_change" }, summary: { kind: "ignore" } },
  set: {
    missingAfter: overrides.missingAfter ?? 2,
    maxEntities: overrides.maxEntities ?? 200,
    rules: [{ kind: "appeared" }, { kind: "disappeared" }],
  },
});
