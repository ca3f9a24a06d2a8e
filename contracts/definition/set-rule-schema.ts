import { z } from "zod";
import { ZFieldNameSchema } from "./field-schema";

/**
 * Rules over a set (docs/design.md §4 "Sets": a listing page, a feed, a place search watched as many entities with the
 * same locked fields). Each item is still judged field by field by the definition's materiality rules; these decide,
 * by code, whether the set as a whole moved in a way that matters: an item's price fell far, many items changed at
 * once, an item appeared nearby, an item is gone.
 */

export const SET_POLICY_LIMITS = {
  minMissingAfter: 1,
  maxMissingAfter: 20,
  defaultMissingAfter: 2,
  minEntities: 1,
  maxEntities: 5000,
  defaultMaxEntities: 200,
  maxRules: 20,
} as const;

/**
 * The field a place search's draft names each item's distance from the search centre, in metres. Set rules read a
 * member's fields by the definition's (snake_case) names, not the source's value keys (`distanceMeters`).
 */
export const DISTANCE_METERS = "distance_meters" as const;

export const ZAnyItemDropRuleSchema = z
  .strictObject({
    kind: z.literal("any_item_drop"),
    field: ZFieldNameSchema.describe("The numeric or money field compared on each item, e.g. price"),
    minPercent: z
      .number()
      .positive("a drop threshold must be greater than 0 %")
      .max(100, "a drop threshold is at most 100 %")
      .describe("Material when one item's value falls by at least this many percent of its old value (10 = 10 %)"),
  })
  .describe("Decided by code: material when any item's numeric or money field drops by minPercent % or more");

export const ZAnyItemRiseRuleSchema = z
  .strictObject({
    kind: z.literal("any_item_rise"),
    field: ZFieldNameSchema.describe("The numeric or money field compared on each item, e.g. price"),
    minPercent: z
      .number()
      .positive("a rise threshold must be greater than 0 %")
      .max(100_000, "a rise threshold is at most 100,000 %")
      .describe("Material when one item's value rises by at least this many percent of its old value (10 = 10 %)"),
  })
  .describe("Decided by code: material when any item's numeric or money field rises by minPercent % or more");

export const ZItemsChangedAtLeastRuleSchema = z
  .strictObject({
    kind: z.literal("items_changed_at_least"),
    count: z
      .number()
      .int("a count is a whole number")
      .min(1, "a count is at least 1")
      .max(SET_POLICY_LIMITS.maxEntities, `a count is at most ${SET_POLICY_LIMITS.maxEntities}`)
      .describe(
        "Material when at least this many items changed in one refresh (a change the item's own field rules call noise does not count)",
      ),
  })
  .describe(
    "Decided by code: material when count or more items changed (not noise by their field rules) in one refresh",
  );

export const ZAppearedRuleSchema = z
  .strictObject({
    kind: z.literal("appeared"),
    withinMeters: z
      .number()
      .positive("a distance must be greater than 0 m")
      .optional()
      .describe(
        `Place searches: only items whose ${DISTANCE_METERS} is at most this many metres count; items without a distance do not`,
      ),
  })
  .describe("Decided by code: material when an item appears in the set (new, or back after it was gone)");

export const ZDisappearedRuleSchema = z
  .strictObject({ kind: z.literal("disappeared") })
  .describe("Decided by code: material when an item is gone (missing from missingAfter reads in a row)");

export const ZSetRuleSchema = z
  .discriminatedUnion("kind", [
    ZAnyItemDropRuleSchema,
    ZAnyItemRiseRuleSchema,
    ZItemsChangedAtLeastRuleSchema,
    ZAppearedRuleSchema,
    ZDisappearedRuleSchema,
  ])
  .describe("A rule over the whole set, decided by code");

export const ZSetPolicySchema = z
  .strictObject({
    missingAfter: z
      .number()
      .int("missingAfter is a whole number of reads")
      .min(SET_POLICY_LIMITS.minMissingAfter, `missingAfter is at least ${SET_POLICY_LIMITS.minMissingAfter}`)
      .max(SET_POLICY_LIMITS.maxMissingAfter, `missingAfter is at most ${SET_POLICY_LIMITS.maxMissingAfter}`)
      .default(SET_POLICY_LIMITS.defaultMissingAfter)
      .describe(
        "How many reads in a row an item must be missing before it counts as gone (default 2): one flaky read is no churn",
      ),
    maxEntities: z
      .number()
      .int("maxEntities is a whole number")
      .min(SET_POLICY_LIMITS.minEntities, `maxEntities is at least ${SET_POLICY_LIMITS.minEntities}`)
      .max(SET_POLICY_LIMITS.maxEntities, `maxEntities is at most ${SET_POLICY_LIMITS.maxEntities}`)
      .default(SET_POLICY_LIMITS.defaultMaxEntities)
      .describe("The most items the tracker keeps, the first ones in the source's order (default 200)"),
    rules: z
      .array(ZSetRuleSchema)
      .max(SET_POLICY_LIMITS.maxRules, `a set has at most ${SET_POLICY_LIMITS.maxRules} rules`)
      .default([])
      .describe("Rules over the set; any one that fires makes the refresh material"),
  })
  .describe("How a tracker that watches a set of entities counts them and judges the set");

export type TAnyItemDropRule = z.infer<typeof ZAnyItemDropRuleSchema>;
export type TAnyItemRiseRule = z.infer<typeof ZAnyItemRiseRuleSchema>;
export type TItemsChangedAtLeastRule = z.infer<typeof ZItemsChangedAtLeastRuleSchema>;
export type TAppearedRule = z.infer<typeof ZAppearedRuleSchema>;
export type TDisappearedRule = z.infer<typeof ZDisappearedRuleSchema>;
export type TSetRule = z.infer<typeof ZSetRuleSchema>;
/** The parsed policy: defaults filled in. */
export type TSetPolicy = z.infer<typeof ZSetPolicySchema>;
/** What a client may send: missingAfter, maxEntities and rules may be left out. */
export type TSetPolicyInput = z.input<typeof ZSetPolicySchema>;
