import { describe, expect, it } from "vitest";
import { describeRule, parseDefinition, type TTrackerDefinition } from "@/server/intelligence/definition";
import { applyChatEdits } from "@/server/intelligence/setup/apply-chat-edits";
import { parseChatEdits, type TChatEdit } from "@/server/intelligence/setup/parse-chat-edit";

/** Rules mode's chat edits: the same words always make the same edit; anything else is not guessed. */

/** The rules-mode draft of the e2e pricing page (fallback.ts), as the card holds it. */
const draft: TTrackerDefinition = {
  fields: [
    {
      name: "acme_pro_price",
      type: "money",
      currency: "USD",
      description: "Pro",
      extractor: { kind: "json_pointer", pointer: "/offers/0/price" },
    },
    {
      name: "availability",
      type: "string",
      description: "Stock",
      extractor: { kind: "json_pointer", pointer: "/offers/0/availability" },
    },
    {
      name: "team_plan_price",
      type: "money",
      currency: "USD",
      description: "Team",
      extractor: { kind: "json_pointer", pointer: "/x" },
    },
    { name: "title", type: "string", description: "Title", extractor: { kind: "json_pointer", pointer: "/title" } },
    {
      name: "headings",
      type: "string_list",
      description: "Headings",
      extractor: { kind: "json_pointer", pointer: "/headings" },
    },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: {
    acme_pro_price: { kind: "numeric", relative: 0.01 },
    availability: { kind: "any_change" },
    team_plan_price: { kind: "numeric", relative: 0.01 },
  },
};

const threshold = (edit: Omit<Extract<TChatEdit, { kind: "threshold" }>, "kind">): TChatEdit => ({
  kind: "threshold",
  ...edit,
});

describe("parseChatEdits", () => {
  const table: [string, TChatEdit[]][] = [
    // thresholds: "it" is the card's main number; the words set direction and amount, nothing else kept
    ["only if it drops more than 10 %", [threshold({ field: null, direction: "down", relative: 0.1 })]],
    ["Only if it drops more than 10%.", [threshold({ field: null, direction: "down", relative: 0.1 })]],
    ["only if it drops by more than 10 percent", [threshold({ field: null, direction: "down", relative: 0.1 })]],
    ["only drops of more than 10%", [threshold({ field: null, direction: "down", relative: 0.1 })]],
    ["tell me when it falls 10 per cent or more", [threshold({ field: null, direction: "down", relative: 0.1 })]],
    ["a 12.5% drop", [threshold({ field: null, direction: "down", relative: 0.125 })]],
    ["I only care if it drops more than 10 %", [threshold({ field: null, direction: "down", relative: 0.1 })]],
    ["only alert on drops over 10%", [threshold({ field: null, direction: "down", relative: 0.1 })]],
    ["rises of at least 3%", [threshold({ field: null, direction: "up", relative: 0.03 })]],
    ["only when price rises by $5", [threshold({ field: "price", direction: "up", absolute: 5, currency: "USD" })]],
    [
      "only when the price goes up by 5 dollars",
      [threshold({ field: "price", direction: "up", absolute: 5, currency: "USD" })],
    ],
    [
      "alert me if the team plan price increases by 3 USD",
      [threshold({ field: "team plan price", direction: "up", absolute: 3, currency: "USD" })],
    ],
    ["only drops in price of more than 10%", [threshold({ field: "price", direction: "down", relative: 0.1 })]],
    ["when rating moves by 0,3 or more", [threshold({ field: "rating", direction: "any", absolute: 0.3 })]],
    ["if it rises or drops by 2", [threshold({ field: null, direction: "any", absolute: 2 })]],
    ["ignore rating wobbles under 0.3", [threshold({ field: "rating", direction: "any", absolute: 0.3 })]],
    ["ignore changes below 5%", [threshold({ field: null, direction: "any", relative: 0.05 })]],
    [
      "don't tell me unless it drops by €2",
      [threshold({ field: null, direction: "down", absolute: 2, currency: "EUR" })],
    ],
    // both thresholds: "or" → either is enough, "and" → both must be crossed
    [
      "only if it drops by $10 or 5%",
      [threshold({ field: null, direction: "down", absolute: 10, relative: 0.05, combine: "either", currency: "USD" })],
    ],
    [
      "only if it drops by $10 and 5%",
      [threshold({ field: null, direction: "down", absolute: 10, relative: 0.05, combine: "both", currency: "USD" })],
    ],
    // removing, ignoring, any change
    ["remove title", [{ kind: "remove", field: "title" }]],
    ["Remove the title field, please", [{ kind: "remove", field: "title" }]],
    ["delete headings", [{ kind: "remove", field: "headings" }]],
    [
      "stop tracking the title and headings",
      [
        { kind: "remove", field: "title" },
        { kind: "remove", field: "headings" },
      ],
    ],
    ["drop the headings", [{ kind: "remove", field: "headings" }]],
    ["ignore the title", [{ kind: "ignore", field: "title" }]],
    ["ignore title changes", [{ kind: "ignore", field: "title" }]],
    ["don't care about headings", [{ kind: "ignore", field: "headings" }]],
    ["any change to availability matters", [{ kind: "any_change", field: "availability" }]],
    ["alert me on any change in the title", [{ kind: "any_change", field: "title" }]],
    // schedules (whether the app offers one is the applier's check)
    ["check every hour", [{ kind: "schedule", minutes: 60 }]],
    ["every 15 minutes", [{ kind: "schedule", minutes: 15 }]],
    ["check it every 15 min", [{ kind: "schedule", minutes: 15 }]],
    ["daily", [{ kind: "schedule", minutes: 1440 }]],
    ["Check once a day please", [{ kind: "schedule", minutes: 1440 }]],
    ["hourly", [{ kind: "schedule", minutes: 60 }]],
    ["once an hour", [{ kind: "schedule", minutes: 60 }]],
    ["check the page every 30 minutes", [{ kind: "schedule", minutes: 30 }]],
    ["every half hour", [{ kind: "schedule", minutes: 30 }]],
    ["refresh every 3 hours", [{ kind: "schedule", minutes: 180 }]],
    ["check twice a day", [{ kind: "schedule", minutes: 720 }]],
    ["every 2 hours", [{ kind: "schedule", minutes: 120 }]],
    // several edits in one message
    [
      "remove title and check every hour",
      [
        { kind: "remove", field: "title" },
        { kind: "schedule", minutes: 60 },
      ],
    ],
    [
      "only if it drops more than 10 %; ignore headings. Daily",
      [
        threshold({ field: null, direction: "down", relative: 0.1 }),
        { kind: "ignore", field: "headings" },
        { kind: "schedule", minutes: 1440 },
      ],
    ],
    // a level is understood as one, to be explained rather than mistaken for a move
    ["tell me if it falls below $40", [{ kind: "level", text: "tell me if it falls below $40" }]],
  ];

  it.each(table)("“%s”", (text, expected) => {
    expect(parseChatEdits(text)).toEqual(expected);
  });

  it.each([
    "add a field for the annual price",
    "what happens next?",
    "make it better",
    "looks fine but the price thing is weird",
    "ignore price drops of 5%", // which way round? not guessed
    "only if it drops by $10 or $20", // two amounts of the same kind
    "remove title and make it better", // one part not understood → nothing applies
    "",
  ])("“%s” is not understood", (text) => {
    expect(parseChatEdits(text)).toBeNull();
  });
});

describe("applyChatEdits on the draft", () => {
  const apply = (text: string) => {
    const edits = parseChatEdits(text);
    if (!edits) throw new Error(`not understood: ${text}`);
    return applyChatEdits(draft, edits);
  };
  const rulesOf = (text: string) => {
    const result = apply(text);
    if (!result.ok) throw new Error(result.message);
    // Every result is a valid definition (the save validates it again).
    expect(parseDefinition(result.definition).ok).toBe(true);
    return result;
  };

  it("“only if it drops more than 10 %” replaces the main price's rule, with no 1 % left behind", () => {
    const r = rulesOf("only if it drops more than 10 %");
    expect(r.definition.materiality.acme_pro_price).toEqual({ kind: "numeric", relative: 0.1, direction: "down" });
    expect(r.definition.materiality.team_plan_price).toEqual({ kind: "numeric", relative: 0.01 });
    expect(r.said[0]).toBe("acme_pro_price: material on a 10% drop or more (rises are noise).");
    expect(r.said[1]).toMatch(/the card's first number/);
    expect(r.scheduleMinutes).toBeNull();
  });

  it("“only when price rises by $5” sets an absolute threshold only, on the first price it could mean, and says so", () => {
    const r = rulesOf("only when price rises by $5");
    expect(r.definition.materiality.acme_pro_price).toEqual({ kind: "numeric", absolute: 5, direction: "up" });
    expect(describeRule(draft.fields[0] ?? { name: "" }, r.definition.materiality.acme_pro_price)).toBe(
      "acme_pro_price: material when it rises by 5 USD or more (drops are noise)",
    );
    expect(r.said.join(" ")).toMatch(/could be acme_pro_price or team_plan_price; I took acme_pro_price/);
    expect(rulesOf("only when the team plan price rises by $5").definition.materiality.team_plan_price).toEqual({
      kind: "numeric",
      absolute: 5,
      direction: "up",
    });
  });

  it("states either/both when a message gives an amount and a percentage", () => {
    expect(rulesOf("only if it drops by $10 and 5%").said[0]).toBe(
      "acme_pro_price: material when it falls both by 10 USD or more and by 5% or more (rises are noise).",
    );
    expect(rulesOf("only if it drops by $10 or 5%").definition.materiality.acme_pro_price).toEqual({
      kind: "numeric",
      absolute: 10,
      relative: 0.05,
      direction: "down",
      combine: "either",
    });
  });

  it("removes, ignores and flags any change as stated", () => {
    const removed = rulesOf("remove title");
    expect(removed.definition.fields.map((f) => f.name)).toEqual([
      "acme_pro_price",
      "availability",
      "team_plan_price",
      "headings",
    ]);
    expect(removed.said).toEqual(["Removed title."]);
    const ignored = rulesOf("ignore the title");
    expect(ignored.definition.fields).toHaveLength(5);
    expect(ignored.definition.materiality.title).toEqual({ kind: "ignore" });
    expect(ignored.said).toEqual(["title: ignored — changes are never flagged."]);
    expect(rulesOf("any change to the headings matters").definition.materiality.headings).toEqual({
      kind: "any_change",
    });
  });

  it("sets a schedule the app offers", () => {
    expect(rulesOf("check every hour")).toMatchObject({ scheduleMinutes: 60, said: ["It checks hourly."] });
    expect(rulesOf("every 15 minutes")).toMatchObject({ scheduleMinutes: 15, said: ["It checks every 15 minutes."] });
    expect(rulesOf("daily").scheduleMinutes).toBe(1440);
  });

  it("refuses, with a reason and nothing changed, what the card cannot do", () => {
    const refused = (text: string) => {
      const r = apply(text);
      if (r.ok) throw new Error(`applied: ${text}`);
      return r.message;
    };
    expect(refused("every 2 hours")).toMatch(/^I can check every 15 minutes, .*, daily — not every 2 hours\.$/);
    expect(refused("remove rating")).toBe(
      "There is no field like “rating” on the card (its fields: acme_pro_price, availability, team_plan_price, title, headings).",
    );
    expect(refused("only if the title drops by 5%")).toBe("title is text; a threshold needs a number or money field.");
    expect(refused("only when it rises by €5")).toBe(
      "acme_pro_price is in USD; give the amount in USD (or as a percentage).",
    );
    expect(refused("remove price")).toBe("Which one: acme_pro_price or team_plan_price?");
    expect(refused("tell me if it falls below $40")).toMatch(/not whether it crosses a level/);
    // All or nothing: the removal before the bad schedule is not applied either.
    expect(refused("remove title; every 2 hours")).toMatch(/not every 2 hours/);
  });

  it("never removes the last field", () => {
    const one: TTrackerDefinition = { ...draft, fields: draft.fields.slice(3, 4), materiality: {} };
    const edits = parseChatEdits("remove title") ?? [];
    expect(applyChatEdits(one, edits)).toEqual({
      ok: false,
      message: "title is the only field; a tracker needs at least one.",
    });
  });
});
