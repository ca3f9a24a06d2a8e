import { getModel, type TLanguageModel } from "../../ai";
import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { AppError, toPublicError } from "../../errors";
import type { TLogger } from "../../logger";
import { bindAndSample } from "./bind-and-sample";
import { toDraftView } from "./draft-view";
import { draftFromSample } from "./fallback";
import { findTarget } from "./find-target";
import { runDrafterAgent } from "./run-drafter-agent";
import { lockSetup, saveSetupDraft } from "./save-setup-draft";
import { appendSetupMessages, getSetupState } from "./session";
import { type TEmit, type TSetupMessage, textMessage } from "./types";

export const MAX_SETUP_MESSAGE_CHARS = 4_000;
const APPROVAL = /^\s*(looks good|lgtm|lock( it)?|ship it|that'?s (it|good|fine)|perfect|approved?|yes,? lock)\b/i;

export const NO_TARGET_QUESTION =
  "Which page or place should I watch for this? Paste its web address (https://…) or a Google Maps place id (it looks like ChIJN1t_tDeuEmsRUsoyG83frY4).";

/**
 * One chat turn of tracker setup. The user's message is persisted first (so a reload mid-turn keeps
 * it); replies and the draft are persisted as they are produced. With a drafter model the agent runs;
 * without one (rules mode) binding, drafting and locking are deterministic. Expected problems become
 * chat messages; the conversation always stays usable.
 */
export async function handleSetupMessage(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    text: string;
    config: TCapabilityConfig;
    emit: TEmit;
    log?: TLogger;
    signal?: AbortSignal;
    /** Defaults to getModel("drafter"); null = rules mode. */
    model?: TLanguageModel | null;
  },
): Promise<void> {
  const text = input.text.trim();
  if (!text) throw new AppError("BAD_REQUEST", "Write a message first.");
  if (text.length > MAX_SETUP_MESSAGE_CHARS) {
    throw new AppError("BAD_REQUEST", `Keep a message under ${MAX_SETUP_MESSAGE_CHARS} characters.`);
  }
  const { sessionId } = input;
  // One turn at a time per conversation (in this process): turns read-modify-write the transcript.
  if (turnsInFlight.has(sessionId)) {
    throw new AppError("CONFLICT", "I am still answering your previous message; send this one when I am done.");
  }
  turnsInFlight.add(sessionId);
  try {
    await runTurn(db, { ...input, text });
  } finally {
    turnsInFlight.delete(sessionId);
  }
}

const turnsInFlight = new Set<string>();

async function runTurn(db: TDb, input: Parameters<typeof handleSetupMessage>[1] & { text: string }): Promise<void> {
  const { userId, sessionId, emit, text } = input;
  const userMessage = textMessage("user", text);
  await appendSetupMessages(db, { userId, sessionId, messages: [userMessage] });
  emit({ type: "message", message: userMessage });

  const replies: TSetupMessage[] = [];
  const say = (reply: string, kind: "text" | "error" | "info" | "question" = "text") => {
    const message = textMessage("assistant", reply, kind);
    replies.push(message);
    emit({ type: "message", message });
  };
  try {
    const state = await getSetupState(db, { userId, sessionId });
    if (state.status === "locked") {
      say("This tracker's definition is locked. Use “Edit definition” on the tracker page to change it.", "info");
    } else {
      const model = input.model === undefined ? getModel("drafter") : input.model;
      if (model) {
        replies.push(
          ...(await runDrafterAgent(db, {
            userId,
            sessionId,
            text,
            state,
            model,
            config: input.config,
            emit,
            signal: input.signal,
          })),
        );
      } else {
        await rulesTurn(db, { ...input, text, say, state });
      }
    }
  } catch (error) {
    input.log?.error("setup turn failed", { sessionId, error: error instanceof Error ? error.message : String(error) });
    const { message } = toPublicError(error);
    say(`That did not work: ${message} The conversation is still open — you can try again.`, "error");
  } finally {
    if (replies.length > 0) await appendSetupMessages(db, { userId, sessionId, messages: replies });
    emit({ type: "done" });
  }
}

async function rulesTurn(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    text: string;
    config: TCapabilityConfig;
    emit: TEmit;
    signal?: AbortSignal;
    say: (text: string, kind?: "text" | "error" | "info" | "question") => void;
    state: Awaited<ReturnType<typeof getSetupState>>;
  },
) {
  const { userId, sessionId, text, emit, say, state } = input;
  if (!state.tracker) {
    const target = findTarget(text);
    if (!target) return say(NO_TARGET_QUESTION, "question");
    emit({ type: "status", text: `Reading ${target.label}…` });
    const decision = state.messages.find((m) => m.role === "user")?.parts[0]?.text ?? text;
    const bound = await bindAndSample(db, {
      userId,
      sessionId,
      decision,
      capability: target.capability,
      capabilityInput: target.input,
      label: target.label,
      config: input.config,
      signal: input.signal,
    });
    if (!bound.ok) return say(`${bound.message} Send another address when you are ready.`, "error");
    emit({ type: "sample", sample: bound.sample.results.document ?? bound.sample.results, target: target.label });
    const definition = draftFromSample(target.capability, bound.sample.results);
    const saved = await saveSetupDraft(db, { userId, sessionId, definition });
    emit({ type: "draft", draft: toDraftView(definition), version: saved.version });
    return say(
      `I read ${target.label} and drafted ${definition.fields.length} field${definition.fields.length === 1 ? "" : "s"} from its structure. AI is off, so I cannot revise the draft from chat: edit or remove fields on the card, then press Lock (or write “looks good”).`,
    );
  }
  if (APPROVAL.test(text)) {
    if (!state.draft) return say("There is no draft to lock yet.", "info");
    const locked = await lockSetup(db, { userId, sessionId });
    emit({ type: "locked", trackerId: locked.trackerId, version: locked.version });
    return say(`Locked version ${locked.version}. The tracker is active.`);
  }
  return say(
    "AI is off, so I cannot change the draft from a chat message. Edit the fields directly on the card, then press Lock — or write “looks good” to lock it as it is.",
    "info",
  );
}
