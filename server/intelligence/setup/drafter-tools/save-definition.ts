import { tool } from "ai";
import { parseDefinition } from "../../definition";
import { checkContextValues } from "../check-context-values";
import { checkDraftAnchors } from "../check-draft-anchors";
import { checkSetDraft } from "../check-set-draft";
import { parsePageReading } from "../read-page-for-draft";
import { saveSetupDraft } from "../save-setup-draft";
import { definitionToolInputSchema } from "../schema";
import { setOfSample } from "../set-sample";
import type { TDrafterTurn } from "./drafter-turn";

/**
 * proposeDefinition and reviseDefinition: a whole definition, validated (parseDefinition, anchors by meaning, context
 * values) before it is saved as the draft. An invalid one goes back for one repair; a second stops the turn.
 */
export function saveDefinitionTool(turn: TDrafterTurn, description: string) {
  return tool({
    description,
    inputSchema: definitionToolInputSchema,
    execute: async (args) => saveDefinition(turn, args.definition),
  });
}

async function saveDefinition(turn: TDrafterTurn, definition: unknown) {
  const parsed = parseDefinition(definition);
  // Anchored by meaning (check-draft-anchors.ts): a /prices/N field is refused when the page has better anchors.
  const anchors = parsed.ok
    ? checkDraftAnchors(parsed.definition, parsePageReading(turn.current?.reading))
    : { problems: [], advice: [] };
  const errors = parsed.ok
    ? [
        ...anchors.problems,
        ...checkContextValues(parsed.definition, turn.files),
        // A set's members or one page (check-set-draft.ts): the definition's shape must match the sample's.
        ...(turn.current ? checkSetDraft(parsed.definition, setOfSample(turn.current, turn.decision)) : []),
      ]
    : parsed.errors;
  if (!parsed.ok || errors.length > 0) {
    turn.invalidDrafts++;
    if (turn.invalidDrafts >= 2) turn.gaveUp = errors;
    return {
      ok: false,
      errors,
      note: turn.invalidDrafts >= 2 ? "Still invalid; stop and let the person know." : "Fix these and call again once.",
    };
  }
  if (!turn.bound) return { ok: false, errors: ["bind a target and fetch the sample first"] };
  const saved = await saveSetupDraft(turn.db, {
    userId: turn.userId,
    sessionId: turn.sessionId,
    definition: parsed.definition,
  });
  turn.reply.draftSaved(saved);
  return {
    ok: true,
    saved: `draft v${saved.version}`,
    fields: parsed.definition.fields.map((f) => f.name),
    ...(anchors.advice.length ? { advice: anchors.advice } : {}),
  };
}
