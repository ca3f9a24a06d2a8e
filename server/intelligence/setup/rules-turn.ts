import { messageText } from "@/contracts/setup-ui-message";
import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import type { TTrackerDefinition } from "../definition";
import { applyChatEdits } from "./apply-chat-edits";
import { applyContextFilesToDraft } from "./apply-context-files";
import { bindAndSample } from "./bind-and-sample";
import { decisionWantsSet } from "./decision-wants-set";
import { scriptContentNote } from "./detect-script-content";
import { draftWithNotes } from "./fallback";
import { findTarget } from "./find-target";
import { parseChatEdits } from "./parse-chat-edit";
import { listingOfSample } from "./read-listing-sample";
import { parsePageReading } from "./read-page-for-draft";
import { rebindPriceByWords } from "./rebind-price";
import { lockSetup, saveSetupDraft } from "./save-setup-draft";
import type { TSetupState } from "./session";
import type { TSetupReply } from "./setup-reply";
import { setSetupSchedule } from "./setup-schedule";

const APPROVAL = /^\s*(looks good|lgtm|lock( it)?|ship it|that'?s (it|good|fine)|perfect|approved?|yes,? lock)\b/i;

export const NO_TARGET_QUESTION =
  "Which page or place should I watch for this? Paste its web address (https://…) or a Google Maps place id (it looks like ChIJN1t_tDeuEmsRUsoyG83frY4).";

/** What rules mode understands after the draft, with the card's own field names where it has them. */
export function rulesModeHelp(definition?: TTrackerDefinition | null): string {
  const names = definition?.fields.map((f) => f.name) ?? [];
  const last = names.length > 1 ? (names.at(-1) ?? "title") : "title";
  return [
    "AI is off, so I understand simple edits to the card only, such as",
    `“only if it drops more than 10 %”, “only when the price rises by $5”, “remove ${last}”, “ignore ${last}”,`,
    "“any change to availability matters”, “check every hour” or “daily” — and “looks good” to lock.",
    "For anything else, edit the fields on the card, then press Lock.",
  ].join(" ");
}

/**
 * One setup turn in rules mode (no drafter model): bind the address in the message, read one sample,
 * draft from its structure, apply simple chat edits (parse-chat-edit.ts), lock on approval — all
 * deterministic (docs/design.md §3 "Setup", rules mode).
 */
export async function runRulesTurn(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    text: string;
    config: TCapabilityConfig;
    reply: TSetupReply;
    state: TSetupState;
  },
): Promise<void> {
  const { userId, sessionId, text, reply, state } = input;
  if (!state.tracker) {
    const target = findTarget(text);
    if (!target) return reply.say(NO_TARGET_QUESTION, "question");
    reply.status(`Reading ${target.label}…`);
    const first = state.messages.find((m) => m.role === "user");
    const decision = first ? messageText(first) : text;
    const bound = await bindAndSample(db, {
      userId,
      sessionId,
      decision,
      capability: target.capability,
      capabilityInput: target.input,
      label: target.label,
      config: input.config,
      // A decision about a set ("did the rival add any products?") watches a listing page as one (docs/sets.md).
      findListing: decisionWantsSet(decision),
    });
    if (!bound.ok) return reply.error(`${bound.message} Send another address when you are ready.`);
    reply.sample(target.label, bound.sample.results.document ?? bound.sample.results, bound.trackerId);
    const { definition, notes } = draftWithNotes(bound.sample.capability, bound.sample.results, {
      decision,
      reading: bound.sample.reading,
      listing: listingOfSample(bound.sample),
    });
    const saved = await saveSetupDraft(db, { userId, sessionId, definition });
    reply.draftSaved(saved);
    const n = definition.fields.length;
    // Says plainly what the draft watches and what it left out (old and promotional prices, article text).
    return reply.say(
      [
        `I read ${target.label} and drafted ${n} field${n === 1 ? "" : "s"} from its structure.`,
        ...notes,
        // A set was asked for but the page is no listing (or could not be read as one): said in one sentence.
        ...(bound.sample.listing?.watched === false ? [bound.sample.listing.why] : []),
        // A price a script fills in: say so and offer the browser read (docs/page-reading.md, "Pages that need a browser").
        ...(bound.sample.scriptContent
          ? [scriptContentNote(bound.sample.scriptContent, !!input.config.fetch.browser)]
          : []),
        "AI is off, so from chat I understand simple edits only (“only if it drops more than 10 %”, “remove title”, “check every hour”); change anything else on the card, then press Lock (or write “looks good”).",
      ].join(" "),
    );
  }
  // Files attached while drafting: a stated "our Pro price 16.00" becomes a context rule on the Pro field
  // (docs/context-files.md), said first so the person sees it; the message is still answered for what it asks.
  const edits = parseChatEdits(text);
  const approval = APPROVAL.test(text);
  const fromFiles = await applyContextFilesToDraft(db, {
    userId,
    sessionId,
    state,
    inTurn: true,
    // The message may answer a question about which field a file's line is for — unless it is an edit or a lock.
    answer: edits || approval ? null : text,
  });
  const filesSaid = fromFiles ? [...fromFiles.said, ...fromFiles.questions] : [];
  if (fromFiles?.draft) reply.draftSaved(fromFiles.draft);
  const definition = fromFiles?.draft?.definition
    ? (fromFiles.draft.definition as TTrackerDefinition)
    : state.draft?.definition;
  const asked = (fromFiles?.questions.length ?? 0) > 0;
  /** The turn's answer after what the files did: questions close the reply, so they are what the person reads last. */
  const answer = (lines: string[], kind?: "info") => {
    const all = fromFiles ? [...fromFiles.said, ...lines, ...fromFiles.questions] : lines;
    return reply.say(all.join(" "), asked ? "question" : kind);
  };

  if (approval) {
    if (!state.draft) return reply.say("There is no draft to lock yet.", "info");
    // Something new from the files: shown before locking, never locked unseen.
    if (filesSaid.length > 0) return answer(["Press Lock when the card looks right."]);
    const locked = await lockSetup(db, { userId, sessionId });
    reply.locked(locked.trackerId, locked.version);
    return reply.say(`Locked version ${locked.version}. The tracker is active.`);
  }
  if (!definition) return reply.say(`There is no valid draft to edit yet. ${rulesModeHelp()}`, "info");
  if (fromFiles?.answered) return answer(["Press Lock when the card looks right."]);
  if (!edits) {
    // "watch the Pro price instead": the page's prices kept with the sample, picked by the words of the message.
    const reading = parsePageReading((state.sample as { reading?: unknown } | null)?.reading);
    const rebound = reading ? rebindPriceByWords(definition, reading.candidates, text) : null;
    if (!rebound) {
      // The files were what this message was about ("use my price list"), or it is not understood.
      if (filesSaid.length > 0) return answer(fromFiles?.draft ? ["Press Lock when the card looks right."] : []);
      return reply.say(rulesModeHelp(definition), "info");
    }
    const saved = await saveSetupDraft(db, { userId, sessionId, definition: rebound.definition });
    reply.draftSaved(saved);
    return answer([...rebound.said, "Press Lock when the card looks right."]);
  }
  const applied = applyChatEdits(definition, edits);
  if (!applied.ok) return answer([`${applied.message} ${rulesModeHelp(definition)}`], "info");
  // The definition first (validated; a refusal leaves the schedule as it was), then the schedule.
  const saved = await saveSetupDraft(db, { userId, sessionId, definition: applied.definition });
  if (applied.scheduleMinutes !== null) {
    await setSetupSchedule(db, { userId, sessionId, scheduleMinutes: applied.scheduleMinutes });
  }
  reply.draftSaved({ ...saved, scheduleMinutes: applied.scheduleMinutes ?? saved.scheduleMinutes });
  return answer([...applied.said, "Press Lock when the card looks right."]);
}
