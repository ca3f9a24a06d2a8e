import type { TPriceCandidateView } from "@/contracts/setup-price-candidates";
import type { TDb } from "../../db";
import { AppError } from "../../errors";
import type { TPriceCandidate } from "./price-candidates";
import { parsePageReading } from "./read-page-for-draft";
import { mainPriceField, rebindPriceTo, watchedCandidate } from "./rebind-price";
import { saveSetupDraft, type TSavedSetupDraft } from "./save-setup-draft";
import { getSetupState } from "./session";

/** The sample's price candidates (kept with its page reading) and the draft they are compared with. */
async function candidatesOf(db: TDb, input: { userId: string; sessionId: string }) {
  const state = await getSetupState(db, input);
  const reading = parsePageReading((state.sample as { reading?: unknown } | null)?.reading);
  return { state, candidates: reading?.candidates ?? [] };
}

function toView(candidates: readonly TPriceCandidate[], watched: TPriceCandidate | undefined): TPriceCandidateView[] {
  return candidates.map((c, index) => ({
    index,
    label: c.label,
    text: c.text,
    where: c.where,
    shown: c.shown,
    watched: c === watched,
  }));
}

/**
 * The prices the card lists for pointing at the right one: empty unless the sample offers two or more (a page with one
 * price has nothing to choose between). The person's own session only.
 */
export async function listPriceCandidates(
  db: TDb,
  input: { userId: string; sessionId: string },
): Promise<TPriceCandidateView[]> {
  const { state, candidates } = await candidatesOf(db, input);
  if (candidates.length < 2) return [];
  const main = state.draft ? mainPriceField(state.draft.definition) : undefined;
  return toView(candidates, main ? watchedCandidate(main, candidates) : undefined);
}

/**
 * Points the draft's main price field at the candidate the person chose on the card (a click, a tap or the keyboard):
 * the same rebinding as naming it in chat, its anchor already checked on the sample, then saved as a card edit.
 */
export async function choosePriceCandidate(
  db: TDb,
  input: { userId: string; sessionId: string; index: number },
): Promise<{ draft: TSavedSetupDraft; said: string[]; candidates: TPriceCandidateView[] }> {
  const { state, candidates } = await candidatesOf(db, input);
  if (!state.draft) throw new AppError("PRECONDITION_FAILED", "There is no draft to change yet.");
  const pick = candidates[input.index];
  if (!pick) throw new AppError("NOT_FOUND", "That price is not on the sample page; read the page again.");
  const rebound = rebindPriceTo(state.draft.definition, candidates, pick);
  const draft = await saveSetupDraft(db, { ...input, definition: rebound.definition });
  return { draft, said: rebound.said, candidates: toView(candidates, pick) };
}
