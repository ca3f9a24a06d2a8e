import { jsonSchema } from "ai";
import { z } from "zod";
import { ZTrackerDefinitionSchema } from "../definition";

/** Tool input schemas of the drafter agent (described for the model). */

export const ZBindCapabilityInputSchema = z.object({
  capability: z
    .enum(["web.scrape", "maps.place"])
    .describe(
      "web.scrape for a web page or JSON endpoint (needs url); maps.place for a Google Maps place (needs placeId)",
    ),
  url: z.string().optional().describe("The page address, exactly as the person gave it"),
  placeId: z.string().optional().describe("The Google Maps place id, e.g. ChIJN1t_tDeuEmsRUsoyG83frY4"),
  title: z
    .string()
    .max(300)
    .optional()
    .describe(
      "The tracker's title: the person's decision as one short question or sentence in their words, without the address (e.g. \"Is the Acme widget back in stock?\")",
    ),
});
export type TBindCapabilityInput = z.infer<typeof ZBindCapabilityInputSchema>;

export const ZNoInputSchema = z.object({});

function definitionJsonSchema(): Record<string, unknown> {
  try {
    return z.toJSONSchema(ZTrackerDefinitionSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  } catch {
    return { type: "object" };
  }
}

/**
 * proposeDefinition / reviseDefinition take a whole definition. The JSON schema guides the model,
 * but the SDK does not validate it: the tool runs parseDefinition itself so an invalid draft becomes
 * a readable repair request (or a chat message), not an opaque tool error.
 */
export type TDefinitionToolInput = { definition: unknown };
export const definitionToolInputSchema = jsonSchema<TDefinitionToolInput>({
  type: "object",
  properties: {
    definition: {
      ...definitionJsonSchema(),
      description: "The complete tracker definition: fields, identityRule and materiality",
    },
  },
  required: ["definition"],
  additionalProperties: false,
});
