import { z } from "zod";

export const ZIdentityRuleSchema = z
  .discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("place_id") }).describe("The Google Maps place id identifies the entity"),
    z.strictObject({ kind: z.literal("canonical_url") }).describe("The page's canonical URL identifies the entity"),
    z.strictObject({ kind: z.literal("input") }).describe("The capability input itself identifies the entity"),
  ])
  .describe("How the tracked entity's stable key is derived");

export type TIdentityRule = z.infer<typeof ZIdentityRuleSchema>;
