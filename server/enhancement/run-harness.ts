import { generateText, type LanguageModel, Output } from "ai";
import { AppError } from "../errors";
import type { THarnessInput } from "./build-input";
import { normaliseEnhancement, type TDropped } from "./normalise-enhancement";
import { buildEnhancementPrompt, ENHANCEMENT_INSTRUCTIONS, ENHANCEMENT_SCHEMA_NAME } from "./prompt";
import { type TEnhancementResult, ZEnhancementOutputSchema } from "./schema";

/** The one model call: every slotted item at once, validated, unknown ids/slots and invalid UI dropped. */
export async function runHarness(
  model: LanguageModel,
  input: THarnessInput,
  knownIds: ReadonlySet<string>,
  now: Date,
): Promise<{ result: TEnhancementResult; dropped: TDropped[] }> {
  let output: unknown;
  try {
    const answer = await generateText({
      model,
      instructions: ENHANCEMENT_INSTRUCTIONS,
      prompt: buildEnhancementPrompt(input, now),
      output: Output.object({ schema: ZEnhancementOutputSchema, name: ENHANCEMENT_SCHEMA_NAME }),
      maxRetries: 1,
    });
    output = answer.output;
  } catch (error) {
    throw new AppError("UPSTREAM_FAILED", "The AI model could not enhance the feed.", { cause: error });
  }
  const parsed = ZEnhancementOutputSchema.safeParse(output);
  if (!parsed.success) throw new AppError("UPSTREAM_FAILED", "The AI model's feed enhancement was not valid.");
  return normaliseEnhancement(parsed.data, input, knownIds);
}
