import { listContextTexts } from "../../context";
import type { TDb } from "../../db";
import { proposeContextRules } from "./propose-context-rules";
import { saveSetupDraft, type TSavedSetupDraft } from "./save-setup-draft";
import { getSetupState, type TSetupState } from "./session";

export type TContextFilesApplied = { draft: TSavedSetupDraft; said: string[] } | null;

/**
 * Files attached while drafting (docs/context-files.md) → the draft: a stated "our price is 10.00" binds `our_price` and adds
 * "material when it drops below our_price" (proposeContextRules: deterministic, no model call). Run by the rules
 * turn, after an AI turn as the drafter's fallback, and by the setup card right after files are attached (so a
 * file chosen before the page was bound shapes the draft as soon as there is one). Null when the conversation has
 * no unlocked draft yet or nothing in the files fits a field that lacks a context rule.
 */
export async function applyContextFilesToDraft(
  db: TDb,
  input: { userId: string; sessionId: string; state?: TSetupState },
): Promise<TContextFilesApplied> {
  const state = input.state ?? (await getSetupState(db, input));
  if (state.status === "locked" || !state.tracker || !state.draft) return null;
  const files = await listContextTexts(db, { userId: input.userId, trackerId: state.tracker.id });
  if (files.length === 0) return null;
  const proposed = proposeContextRules(state.draft.definition, files);
  if (!proposed) return null;
  const draft = await saveSetupDraft(db, { ...input, definition: proposed.definition });
  return { draft, said: proposed.said };
}
