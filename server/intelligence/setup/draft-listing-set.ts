import type { TListingField, TListingKey, TListingPlan } from "@/contracts/definition/listing-plan";
import type { TMaterialityRule } from "../definition";
import { decisionAboutPrices, setMemberNoun } from "./decision-wants-set";
import { draftSet, type TDraftedSet, type TSetFieldDraft } from "./draft-set";

/** A listing page watched as a set: its locked plan, and how many members the sample read with it. */
export type TListingDraft = { plan: TListingPlan; members: number };

/** A member's price moves on 1 %, as a single page's price does (fallback.ts). */
const MONEY_RULE: TMaterialityRule = { kind: "numeric", relative: 0.01 };
/** A renamed product, an edited note or a plain number (a stock count, a rating): the agent judges it. */
const TEXT_RULE: TMaterialityRule = { kind: "ask_agent" };
/** Stock: any change is material, as on a single page (docs/intelligence.md). */
const AVAILABILITY_RULE: TMaterialityRule = { kind: "any_change" };
/** A link is how a member is found, not what it says (a moved link of the same member is noise). */
const LINK_RULE: TMaterialityRule = { kind: "ignore" };
/** A decision about prices ("which got cheaper?") gets a drop rule on the main price at this many percent. */
const DROP_PERCENT = 10;

const IDENTITY: Record<TListingKey["kind"], (key: TListingKey) => string> = {
  url: () => "their URL",
  sku: () => "their SKU",
  "id-attribute": (key) => `the id the site gives them (their “${key.attribute ?? "id"}” attribute)`,
  name: () => "their name",
};

function where(f: TListingField): string {
  if (f.jsonPath) return `its JSON-LD ${f.jsonPath}`;
  if (f.selector) return `the element ${f.selector}${f.attribute ? ` (its ${f.attribute})` : ""}`;
  return "the item itself";
}

function memberField(f: TListingField, one: string): TSetFieldDraft {
  const description = `Each ${one}'s ${f.name.replace(/_/g, " ")}, read from ${where(f)}`;
  switch (f.type) {
    case "money":
      // Read as "<amount> <currency>" (contracts/definition/listing-plan.ts); a price without a known currency is a number.
      return f.currency
        ? {
            value: f.name,
            type: "money",
            currency: f.currency,
            description: `${description}, in ${f.currency}`,
            rule: MONEY_RULE,
          }
        : { value: f.name, type: "number", description, rule: MONEY_RULE };
    case "number":
      return { value: f.name, type: "number", description, rule: TEXT_RULE };
    case "availability":
      return {
        value: f.name,
        type: "string",
        description: `${description} (schema.org value or the stock text)`,
        rule: AVAILABILITY_RULE,
      };
    case "url":
      return { value: f.name, type: "string", description, rule: LINK_RULE };
    case "text":
      return { value: f.name, type: "string", description, rule: TEXT_RULE };
  }
}

/**
 * Rules mode for a listing page whose decision is about a set (docs/sets.md; decision-wants-set.ts): one member field
 * per field of the locked plan, each read by the pointer `/<name>` from a member's values, the set's default policy,
 * and — when the decision is about prices — a drop of 10 % or more on the main price as a set rule. The reply says
 * how many members, what identifies them and what is material.
 */
export function draftListingSet(listing: TListingDraft, decision: string): TDraftedSet {
  const { plan, members } = listing;
  const money = plan.fields.find((f) => f.type === "money");
  const member =
    setMemberNoun(decision) ?? (money ? { one: "product", many: "products" } : { one: "item", many: "items" });
  const fields = plan.fields.map((f) => memberField(f, member.one));
  const paged = plan.nextPage ? ` and the pages after it (up to ${plan.maxPages} in all)` : "";
  return draftSet({
    watched: `the ${members} ${members === 1 ? member.one : member.many} on this page${paged}`,
    identity: IDENTITY[plan.key.kind](plan.key),
    source: "page",
    member,
    members,
    fields,
    drop: money && decisionAboutPrices(decision) ? { field: money.name, minPercent: DROP_PERCENT } : null,
  });
}
