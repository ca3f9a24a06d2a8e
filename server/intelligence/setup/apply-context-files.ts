import { listContextTexts } from "../../context";
import type { TDb } from "../../db";
import { proposeContextRules } from "./propose-context-rules";
import { saveSetupDraft, type TSavedSetupDraft } from "./save-setup-draft";
import { getSetupState, type TSetupState } from "./session";
import { isSetupTurnRunning } from "./turns-in-flight";

export type TContextFilesApplied = {
  /** The saved draft when a value was bound; null when the files only asked or explained. */
  draft: TSavedSetupDraft | null;
  /** What was bound, and what was left unbound and why. */
  said: string[];
  /** Which field a line is about, when its words do not say (answered with the field's name, or "yes"). */
  questions: string[];
  /** The person's message was the answer to such a question (so it is no chat edit). */
  answered: boolean;
} | null;

/**
 * Files attached while drafting (docs/context-files.md) → the draft: a stated "our Pro price 16.00" binds `our_pro_price`
 * for the field its words name and adds "material when it drops below our_pro_price" (proposeContextRules:
 * deterministic, no model call); a line whose field is unclear becomes a question. Run at the start of every turn (rules
 * mode and before the drafter), after an AI turn as the drafter's fallback, and by the setup card right after files are
 * attached (not while a turn runs). `answer`: the person's message, which may answer an earlier question. Sentences already in the conversation
 * are not said again. Null when the conversation has no unlocked draft yet or the files add nothing.
 */
export async function applyContextFilesToDraft(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    state?: TSetupState;
    answer?: string | null;
    /** Called by the turn itself. Otherwise (the card, setup.applyContextFiles) nothing happens while a turn runs. */
    inTurn?: boolean;
  },
): Promise<TContextFilesApplied> {
  // The running turn takes the files in itself, and a save from here could overwrite the edit it is making; the card
  // calls again once the turn is over.
  if (!input.inTurn && isSetupTurnRunning(input.sessionId)) return null;
  const state = input.state ?? (await getSetupState(db, input));
  if (state.status === "locked" || !state.tracker || !state.draft) return null;
  const files = await listContextTexts(db, { userId: input.userId, trackerId: state.tracker.id });
  if (files.length === 0) return null;
  const transcript = state.messages
    .filter((m) => m.role === "assistant")
    .flatMap((m) => m.parts.map((p) => (p.type === "text" ? p.text : "")))
    .join("\n");
  const proposed = proposeContextRules(state.draft.definition, files, {
    answer: input.answer ?? null,
    wasAsked: (quote) => transcript.includes(`“${quote}”`),
  });
  if (!proposed) return null;
  const fresh = (sentence: string) => !transcript.includes(sentence);
  const said = proposed.said.filter(fresh);
  const questions = proposed.questions.filter(fresh);
  const draft = proposed.changed
    ? await saveSetupDraft(db, { userId: input.userId, sessionId: input.sessionId, definition: proposed.definition })
    : null;
  if (!draft && said.length === 0 && questions.length === 0) return null;
  return { draft, said, questions, answered: proposed.answered };
}
