import { jsonSchema } from "ai";
import { z } from "zod";
import { listCapabilities } from "../../capabilities";
import { ZTrackerDefinitionSchema } from "../definition";

/** Tool input schemas of the drafter agent (described for the model). */

/**
 * The bind tool's input, from the capability registry: the capability (each described by its descriptor's drafter
 * hint) and the one argument that names each one's target (a web address, a place id).
 */
function bindCapabilityInputSchema() {
  const capabilities = listCapabilities();
  const names = capabilities.map((c) => c.name) as [string, ...string[]];
  const args: Record<string, z.ZodOptional<z.ZodString>> = {};
  for (const c of capabilities) args[c.target.arg] ??= z.string().optional().describe(c.target.describe);
  return z.object({
    capability: z.enum(names).describe(capabilities.map((c) => c.drafterHint).join(" ")),
    ...args,
    watch: z
      .enum(["one", "set"])
      .optional()
      .describe(
        'What the decision is about (docs/sets.md): "set" when it asks about a collection — who or what was added, dropped, is new, any of the products or postings — so a listing page is read as its items; "one" for a single named thing (a plan, a product, a place). Omitted: decided from the decision\'s words.',
      ),
    title: z
      .string()
      .max(300)
      .optional()
      .describe(
        "The tracker's title: the person's decision as one short question or sentence in their words, without the address (e.g. \"Is the Acme widget back in stock?\")",
      ),
  });
}
export const ZBindCapabilityInputSchema = bindCapabilityInputSchema();
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
