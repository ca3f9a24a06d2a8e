import { messageText } from "@/contracts/setup-ui-message";
import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { bindAndSample } from "./bind-and-sample";
import { draftWithNotes } from "./fallback";
import { findTarget } from "./find-target";
import { lockSetup, saveSetupDraft } from "./save-setup-draft";
import type { TSetupState } from "./session";
import type { TSetupReply } from "./setup-reply";

const APPROVAL = /^\s*(looks good|lgtm|lock( it)?|ship it|that'?s (it|good|fine)|perfect|approved?|yes,? lock)\b/i;

export const NO_TARGET_QUESTION =
  "Which page or place should I watch for this? Paste its web address (https://…) or a Google Maps place id (it looks like ChIJN1t_tDeuEmsRUsoyG83frY4).";

/**
 * One setup turn in rules mode (no drafter model): bind the address in the message, read one sample,
 * draft from its structure, lock on approval — all deterministic (DESIGN §3 "Setup", rules mode).
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
    });
    if (!bound.ok) return reply.error(`${bound.message} Send another address when you are ready.`);
    reply.sample(target.label, bound.sample.results.document ?? bound.sample.results);
    const { definition, notes } = draftWithNotes(target.capability, bound.sample.results, {
      decision,
      reading: bound.sample.reading,
    });
    const saved = await saveSetupDraft(db, { userId, sessionId, definition });
    reply.draftSaved(saved);
    const n = definition.fields.length;
    // Says plainly what the draft watches and what it left out (old and promotional prices, article text).
    return reply.say(
      [
        `I read ${target.label} and drafted ${n} field${n === 1 ? "" : "s"} from its structure.`,
        ...notes,
        "AI is off, so I cannot revise the draft from chat: edit or remove fields on the card, then press Lock (or write “looks good”).",
      ].join(" "),
    );
  }
  if (APPROVAL.test(text)) {
    if (!state.draft) return reply.say("There is no draft to lock yet.", "info");
    const locked = await lockSetup(db, { userId, sessionId });
    reply.locked(locked.trackerId, locked.version);
    return reply.say(`Locked version ${locked.version}. The tracker is active.`);
  }
  return reply.say(
    "AI is off, so I cannot change the draft from a chat message. Edit the fields directly on the card, then press Lock — or write “looks good” to lock it as it is.",
    "info",
  );
}
