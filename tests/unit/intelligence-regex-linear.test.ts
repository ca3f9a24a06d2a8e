import { describe, expect, it } from "vitest";
import {
  compileRegex,
  MAX_REGEX_TEXT_CHARS,
  parseDefinition,
  type TField,
  type TTrackerDefinition,
} from "@/server/intelligence/definition";
import { applyExtractors } from "@/server/intelligence/fill";

/**
 * Extractor regexes come from definitions a model may write, and run in the process that owns the
 * database. On a backtracking engine the patterns below take exponential time: `(\w+\s?)*$` on 27
 * characters of "aaaa… !" ran for 7 s, and each further character doubles it, so 100 KB would take
 * longer than the universe has existed. These tests only pass inside Vitest's default 5 s timeout
 * because the engine is linear; they assert no clock, only results.
 */

const ONE_HUNDRED_KB = MAX_REGEX_TEXT_CHARS;

function def(fields: TField[]): TTrackerDefinition {
  return { fields, identityRule: { kind: "input" }, materiality: {} };
}

function field(
  name: string,
  pattern: string,
  opts: { type?: TField["type"]; currency?: string; group?: number | string; flags?: string } = {},
): TField {
  const { type = "string", currency, group, flags } = opts;
  return {
    name,
    type,
    description: name,
    ...(currency ? { currency } : {}),
    extractor: {
      kind: "regex",
      pattern,
      ...(group !== undefined ? { group } : {}),
      ...(flags !== undefined ? { flags } : {}),
    },
  };
}

function mustCompile(pattern: string, flags = "") {
  const compiled = compileRegex(pattern, flags);
  if (!compiled.ok) throw new Error(compiled.problem);
  return compiled.regex;
}

describe("catastrophic patterns run in linear time with correct results", () => {
  it("(\\w+\\s?)*$ on the 29-character case from the issue and on 100 KB of the same shape", async () => {
    for (const text of [`${"a".repeat(27)} !`, `${"a".repeat(ONE_HUNDRED_KB - 2)} !`]) {
      expect(text.length).toBeGreaterThanOrEqual(29);
      // The only place `…*$` can match is the empty string at the very end, after "!".
      const match = mustCompile("(\\w+\\s?)*$").exec(text) as RegExpExecArray | null;
      expect(match?.index).toBe(text.length);
      expect(match?.[0]).toBe("");
      expect(match?.[1]).toBeUndefined();
      const { values, warnings } = await applyExtractors(def([field("tail", "(\\w+\\s?)*$")]), { json: null, text });
      expect(values.tail).toBeNull();
      expect(warnings).toEqual(["tail: regex group 1 did not participate in the match"]);
    }
    // Where it can match, the capture is the last repetition, as in JavaScript.
    const words = `${"word ".repeat(ONE_HUNDRED_KB / 5 - 1)}last`;
    const { values } = await applyExtractors(def([field("last_word", "(\\w+\\s?)*$")]), { json: null, text: words });
    expect(values.last_word).toBe("last");
  });

  it("(a+)+$ on 100 KB: no match when the text ends in '!', the whole run when it does not", async () => {
    const definition = def([field("run", "(a+)+$")]);
    const miss = await applyExtractors(definition, { json: null, text: `${"a".repeat(ONE_HUNDRED_KB - 1)}!` });
    expect(miss.values.run).toBeNull();
    expect(miss.warnings).toEqual(["run: regex /(a+)+$/ matched nothing"]);
    const all = "a".repeat(ONE_HUNDRED_KB);
    const match = mustCompile("(a+)+$").exec(all);
    expect(match?.[0]).toBe(all);
    expect(match?.[1]).toBe(all); // the greedy first repetition takes the whole run
    const hit = await applyExtractors(definition, { json: null, text: all });
    expect(hit.warnings).toEqual([]);
    expect(hit.values.run).toMatch(/^a{2000}$/); // string fields keep 2,000 characters
  });

  it("(?:a|a)*b on 100 KB: no match without a b, the whole text with one at the end", async () => {
    const definition = def([field("ab", "(?:a|a)*b")]);
    expect((await applyExtractors(definition, { json: null, text: "a".repeat(ONE_HUNDRED_KB) })).values.ab).toBeNull();
    const text = `${"a".repeat(ONE_HUNDRED_KB - 1)}b`;
    expect(mustCompile("(?:a|a)*b").exec(text)?.[0]).toBe(text);
    const short = "xx aaab yy";
    expect((await applyExtractors(definition, { json: null, text: short })).values.ab).toBe("aaab");
  });

  it("(\\d+,?)+\\.\\d{2} on 100 KB digit runs: no false match, and the real prices after them", async () => {
    const pattern = "(\\d+,?)+\\.\\d{2}";
    const digits = "1234567890".repeat(ONE_HUNDRED_KB / 10);
    expect(mustCompile(pattern).exec(digits)).toBeNull();
    const prices = " Total 1,299.00 or 45.50 per month";
    const text = `${"1234,".repeat((ONE_HUNDRED_KB - prices.length) / 5 - 1)}${prices}`;
    expect(text.length).toBeLessThanOrEqual(ONE_HUNDRED_KB);
    const { values } = await applyExtractors(def([field("prices", pattern, { type: "string_list", group: 0 })]), {
      json: null,
      text,
    });
    expect(values.prices).toEqual(["1,299.00", "45.50"]);
    // A money field reads the same match through its capture-free form.
    const money = await applyExtractors(
      def([field("total", "\\d{1,3}(?:,\\d{3})*\\.\\d{2}", { type: "money", currency: "USD" })]),
      { json: null, text: prices },
    );
    expect(money.values.total).toEqual({ amount: 1299, currency: "USD" });
  });

  it("the drafter's own schema accepts these patterns: nothing to refuse when nothing can blow up", () => {
    for (const pattern of ["(\\w+\\s?)*$", "(a+)+$", "(?:a|a)*b", "(\\d+,?)+\\.\\d{2}", "(x+x+)+y"]) {
      expect(compileRegex(pattern)).toMatchObject({ ok: true });
    }
  });
});

describe("what the engine cannot run is a validation error naming the field and the construct", () => {
  const withPattern = (pattern: string, extra: Record<string, unknown> = {}) => ({
    fields: [
      { name: "title", type: "string", description: "Page title" },
      { name: "price", type: "string", description: "Price", extractor: { kind: "regex", pattern, ...extra } },
    ],
    identityRule: { kind: "canonical_url" },
    materiality: {},
  });
  const errorsFor = (pattern: string, extra: Record<string, unknown> = {}) => {
    const parsed = parseDefinition(withPattern(pattern, extra));
    if (parsed.ok) throw new Error(`expected ${pattern} to be refused`);
    return parsed.errors;
  };
  const where = "fields[1] (price) › extractor › pattern: ";

  it.each([
    ["(\\d+)\\s\\1", "backreferences such as \\1 are not supported"],
    ["(?<n>\\d+)-\\k<n>", "named backreferences (\\k<…>) are not supported"],
    ["\\d+(?= USD)", "lookahead (?=…) is not supported"],
    ["\\d+(?! USD)", "lookahead (?!…) is not supported"],
    ["(?<=\\$)\\d+", "lookbehind (?<=…) is not supported"],
    ["(?<!-)\\d+", "lookbehind (?<!…) is not supported"],
    ["(?>\\d+)", "atomic groups (?>…) are not supported"],
    ["\\d++", "possessive or doubled quantifiers such as a++ or a*+ are not supported"],
    ["\\e\\d+", "the escape \\e is not supported"],
    ["(unclosed", "the pattern does not compile: missing closing )"],
  ])("%s", (pattern, message) => {
    const [error, ...rest] = errorsFor(pattern);
    expect(rest).toEqual([]);
    expect(error?.startsWith(`${where}${message}`)).toBe(true);
    if (!message.includes("does not compile")) expect(error).toContain("RE2, a linear-time engine");
  });

  it("does not mistake escaped or bracketed look-alikes for lookaround", () => {
    for (const pattern of ["\\(?=x", "[(?=]x", "[?(=]x"]) {
      expect(parseDefinition(withPattern(pattern)).ok).toBe(true);
    }
  });

  it("checks the group exists, by number or by name", () => {
    expect(errorsFor("(\\d+) reviews", { group: 2 })).toEqual([
      "fields[1] (price) › extractor › group: group 2 does not exist: the pattern has 1 capture group",
    ]);
    expect(errorsFor("(?<n>\\d+)", { group: "m" })).toEqual([
      'fields[1] (price) › extractor › group: the pattern has no group named "m"',
    ]);
    expect(errorsFor("(?<n>\\d+)", { group: "constructor" })).toHaveLength(1);
    expect(parseDefinition(withPattern("(?<n>\\d+)", { group: "n" })).ok).toBe(true);
  });

  it("keeps the length cap and the flag whitelist", () => {
    expect(errorsFor("a".repeat(501))).toEqual([`${where}the pattern is longer than 500 characters`]);
    expect(errorsFor("a", { flags: "g" })[0]).toContain('flags "g" are not allowed');
  });

  it("a stored definition the engine cannot run becomes a warning at refresh time, never a crash", async () => {
    const stored = def([field("price", "\\d+(?= USD)")]);
    const { values, warnings } = await applyExtractors(stored, { json: null, text: "12 USD" });
    expect(values.price).toBeNull();
    expect(warnings[0]).toMatch(/^price: regex \/\\d\+\(\?= USD\)\/ cannot run: lookahead \(\?=…\) is not supported/);
  });
});

describe("JavaScript semantics kept: flags, groups, list mode, escapes", () => {
  const text = "Opening HOURS\nmon: 9-17\ntue: 10-18\nPrice:\u00a012.50 EUR\nNote: first line\nsecond line";

  it("i, m and s mean what they mean in JavaScript", async () => {
    const fields = [
      field("ci", "opening (hours)", { flags: "i" }),
      field("days", "^(\\w+):", { type: "string_list" }),
      field("days_m", "^(\\w+):", { type: "string_list", flags: "m" }),
      field("note_s", "Note: (.+)$", { flags: "s" }),
      field("note_no_s", "Note: (.+)"),
    ];
    const { values } = await applyExtractors(def(fields), { json: null, text });
    expect(values.ci).toBe("HOURS");
    expect(values.days).toBeNull(); // without m, ^ is the start of the text only
    expect(values.days_m).toEqual(["mon", "tue", "Price", "Note"]);
    expect(values.note_s).toBe("first line second line"); // . crossed the newline; string fields collapse whitespace
    expect(values.note_no_s).toBe("first line");
  });

  it("named groups, \\u escapes and list mode with a 100-match cap", async () => {
    const { values } = await applyExtractors(
      def([
        field("amount", "Price:\\u00a0(?<amount>[\\d.]+)", { type: "number", group: "amount" }),
        field("numbers", "\\d+", { type: "string_list" }),
      ]),
      { json: null, text: `${text} ${Array.from({ length: 150 }, (_, i) => i).join(" ")}` },
    );
    expect(values.amount).toBe(12.5);
    expect(values.numbers).toHaveLength(100);
    expect((values.numbers as string[]).slice(0, 6)).toEqual(["9", "17", "10", "18", "12", "50"]);
  });

  it("reuses one compiled pattern safely: no lastIndex state between runs", () => {
    const regex = mustCompile("(\\d+)");
    expect([...regex.matchAll("1 2 3")].map((m) => m[1])).toEqual(["1", "2", "3"]);
    expect([...regex.matchAll("1 2 3")].map((m) => m[1])).toEqual(["1", "2", "3"]);
  });
});
