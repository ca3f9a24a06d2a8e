import type { LanguageModel } from "ai";
import type { TPageView, TStoredProposal } from "@/contracts/setup-page-view";
import { anchorElementInWorker, type TCapabilityConfig } from "../../../capabilities";
import type { TField } from "../../definition";
import { type TModelUsage, ZERO_USAGE } from "../../fill/model-usage";
import { callStructured } from "../../fill/structured-call";
import { placesShowing, textsBefore } from "./fallback";
import { buildReanchorPrompt, buildReanchorRepairMessage, REANCHOR_INSTRUCTIONS, type TReanchorPlace } from "./prompt";
import { buildReanchorJsonSchema, validateReanchorAnswer } from "./schema";

/**
 * The agent proposes where fields that stopped reading are on the page now (docs/page-view.md, "Fixing a field"):
 * for CSS fields that read before, the places that show what they read then (often several: a "was" line, another
 * plan at the same price) and the page's prices, each anchored and said in words; ONE structured call picks a place
 * per field, or none. The person still decides ("Use it"). No model, no fields, or no places: no call, nothing
 * proposed (the page view then proposes by code: fallback.ts).
 */

const MAX_PLACES = 16;

export async function proposeReanchorWithAgent(input: {
  model: LanguageModel | null;
  decision: string;
  view: TPageView;
  fields: readonly TField[];
  pages: { now: string; before: string };
  pageText: string;
  config: TCapabilityConfig;
  maxRetries?: number;
}): Promise<{ proposals: TStoredProposal[]; modelCalls: number; usage: TModelUsage }> {
  const none = { proposals: [], modelCalls: 0, usage: ZERO_USAGE };
  const missing = input.view.fields.filter((f) => f.reads === null);
  if (!input.model || missing.length === 0) return none;
  const texts = await textsBefore(missing, input.fields, input.pages.before, input.config);
  if (texts.size === 0) return none;
  const showing = await placesShowing(texts, input.pages.now, input.config);

  // Places: where the old texts show now, then the page's prices; each once, anchored, said in words.
  const elements = [
    ...new Set([
      ...[...showing.values()].flat(),
      ...input.view.candidates.flatMap((c) => (c.elements.length === 1 ? c.elements : [])),
    ]),
  ].slice(0, MAX_PLACES);
  const places: (TReanchorPlace & { element: number })[] = [];
  for (const element of elements) {
    const anchored = await anchorElementInWorker(input.pages.now, element, input.config.fetch.page);
    const best = anchored.found ? anchored.anchors[0] : undefined;
    if (anchored.found && best)
      places.push({ element: anchored.element, text: anchored.text.slice(0, 80), where: best.words });
  }
  const fields = missing.filter((f) => texts.has(f.name));
  if (places.length === 0 || fields.length === 0) return none;

  const names = fields.map((f) => f.name);
  const { value, modelCalls, usage } = await callStructured({
    task: "reanchor",
    model: input.model,
    instructions: REANCHOR_INSTRUCTIONS,
    prompt: buildReanchorPrompt({
      decision: input.decision,
      fields: fields.map((f) => ({
        name: f.name,
        description: input.fields.find((d) => d.name === f.name)?.description ?? "",
        was: texts.get(f.name) ?? "",
        where: f.where,
      })),
      places,
      pageText: input.pageText,
    }),
    schema: buildReanchorJsonSchema(names, places.length),
    schemaName: "reanchor_proposals",
    validate: (answer) => validateReanchorAnswer(names, places.length, answer),
    repairMessage: buildReanchorRepairMessage,
    maxRetries: input.maxRetries ?? 2,
  });
  const proposals = value.proposals.flatMap((p) => {
    const place = p.place === null ? undefined : places[p.place];
    return place ? [{ field: p.field, element: place.element, text: place.text, where: place.where, why: p.why }] : [];
  });
  return { proposals, modelCalls, usage };
}
