import { type ModelMessage, parsePartialJson, type StopCondition, streamText } from "ai";
import { messageText, type TSetupUIMessage } from "@/contracts/setup-ui-message";
import type { TLanguageModel } from "../../ai";
import type { TCapabilityConfig } from "../../capabilities";
import { listContextTexts } from "../../context";
import type { TDb } from "../../db";
import { applyChatEdits } from "./apply-chat-edits";
import { applyContextFilesToDraft } from "./apply-context-files";
import type { TSetupSample } from "./bind-and-sample";
import { toDraftView } from "./draft-view";
import { drafterTools, type TDrafterTurn } from "./drafter-tools";
import { parseChatEdits } from "./parse-chat-edit";
import { buildDrafterInstructions } from "./prompt";
import { saveSetupDraft } from "./save-setup-draft";
import { getSetupState, type TSetupState } from "./session";
import { agentSampleJson } from "./set-sample";
import type { TSetupReply } from "./setup-reply";
import { setSetupSchedule } from "./setup-schedule";

const MAX_STEPS = 6;
const DEFINITION_TOOLS = new Set(["proposeDefinition", "reviseDefinition"]);

/**
 * One chat turn of the drafter: an AI SDK tool-using agent (streamText + tools, several steps).
 * Its text reaches the page token by token; draft tool arguments are streamed to the card as they are
 * written (partial JSON → the draft data part, updated in place); every definition is validated with
 * parseDefinition before it is saved; an invalid one is sent back for one repair and otherwise reported
 * in the chat.
 */
export async function runDrafterAgent(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    text: string;
    state: TSetupState;
    model: TLanguageModel;
    config: TCapabilityConfig;
    reply: TSetupReply;
  },
): Promise<void> {
  const { userId, sessionId, reply } = input;
  // Files attached since the last turn are taken in by code first (docs/context-files.md): the model then sees the
  // draft with them, and its turn is left to what the person asked.
  const fromFiles = await applyContextFilesToDraft(db, {
    userId,
    sessionId,
    state: input.state,
    answer: input.text,
    inTurn: true,
  });
  if (fromFiles?.draft) reply.draftSaved(fromFiles.draft);
  if (fromFiles && fromFiles.said.length + fromFiles.questions.length > 0) {
    reply.say([...fromFiles.said, ...fromFiles.questions].join(" "), fromFiles.questions.length ? "question" : "text");
  }
  const state = fromFiles?.draft ? await getSetupState(db, { userId, sessionId }) : input.state;
  const before = state.draft ? JSON.stringify(state.draft.definition) : null;

  const sample = state.sample as TSetupSample | null;
  const first = state.messages.find((m) => m.role === "user");
  const turn: TDrafterTurn = {
    db,
    userId,
    sessionId,
    decision: first ? messageText(first) : input.text,
    config: input.config,
    reply,
    // Files attached while drafting (docs/context-files.md): in the prompt as untrusted data.
    files: state.tracker ? await listContextTexts(db, { userId, trackerId: state.tracker.id }) : [],
    pending: null,
    bound: state.tracker && sample ? { label: sample.label } : null,
    current: sample,
    invalidDrafts: 0,
    gaveUp: null,
    locked: false,
  };
  const { files } = turn;
  const tools = drafterTools(turn);

  const history = toModelHistory(state.messages);
  // The current message is already the last persisted one; make sure it is last exactly once.
  if (history.at(-1)?.role !== "user" || history.at(-1)?.content !== input.text) {
    history.push({ role: "user", content: input.text });
  }

  const stopAfterGivingUp: StopCondition<typeof tools> = () => turn.gaveUp !== null || turn.locked;
  const result = streamText({
    model: input.model,
    instructions: buildDrafterInstructions({
      target: sample?.label ?? null,
      draftJson: state.draft ? JSON.stringify(state.draft.definition) : null,
      sampleJson: sample ? agentSampleJson(sample, turn.decision) : null,
      contextFiles: files,
      filesTakenIn: fromFiles ? [...fromFiles.said, ...fromFiles.questions] : [],
    }),
    messages: history,
    tools,
    toolCallConcurrency: 1,
    stopWhen: [stopAfterGivingUp, ({ steps }) => steps.length >= MAX_STEPS],
    maxRetries: 1,
  });

  // One pass over the stream (rather than merging toUIMessageStream beside it) keeps text, draft parts and
  // the closing lines below in the order they happened, and keeps tool calls off the page.
  let text = reply.startText();
  const toolBuffers = new Map<string, string>();
  let lastPartialKey = "";
  for await (const part of result.stream) {
    switch (part.type) {
      case "text-delta":
        text.delta(part.text);
        break;
      case "text-end":
        text.end();
        text = reply.startText();
        break;
      case "tool-input-start":
        if (DEFINITION_TOOLS.has(part.toolName)) toolBuffers.set(part.id, "");
        break;
      case "tool-input-delta": {
        const buffer = toolBuffers.get(part.id);
        if (buffer === undefined) break;
        const next = buffer + part.delta;
        toolBuffers.set(part.id, next);
        const partial = await parsePartialJson(next);
        const definition = (partial.value as { definition?: unknown } | undefined)?.definition;
        if (definition === undefined) break;
        const view = toDraftView(definition);
        const key = JSON.stringify(view);
        if (key !== lastPartialKey) {
          lastPartialKey = key;
          reply.draftPartial(view);
        }
        break;
      }
      case "error":
        throw part.error;
      default:
        break;
    }
  }

  text.end();
  reply.draftDiscarded();
  if (turn.gaveUp) {
    reply.error(
      `The drafted definition did not pass validation, so nothing was saved:\n• ${turn.gaveUp.join("\n• ")}\nYou can ask me to try again or describe the change differently.`,
    );
  }
  // The deterministic proposal as the drafter's fallback: a stated "our price is 10.00" a revision left unbound.
  if (files.length > 0 && !turn.locked && !turn.gaveUp) {
    const applied = await applyContextFilesToDraft(db, { userId, sessionId, inTurn: true });
    if (applied?.draft) reply.draftSaved(applied.draft);
    // Not stored yet, so not in the transcript: what this turn said already is left out here.
    const told = new Set([...(fromFiles?.said ?? []), ...(fromFiles?.questions ?? [])]);
    const more = applied ? [...applied.said, ...applied.questions].filter((s) => !told.has(s)) : [];
    if (more.length > 0) reply.say(more.join(" "));
  }
  if (!turn.locked && !turn.gaveUp)
    await applyEditsTheModelLeft(db, { userId, sessionId, text: input.text, before, reply });
  if (reply.replies === 0 && !turn.locked) reply.say("Done. Anything else to change before locking?");
}

/**
 * Every turn is answered for what it asked (docs/trackers.md, "Chat edits"): an edit the closed grammar reads
 * (parse-chat-edit.ts: "only if it drops more than 10 %", "check every hour") that the draft does not carry after the
 * model's turn — the model talked about something else, such as a file just attached — is applied by code, the same
 * way rules mode applies it, and said. When code would have to guess (which number "it" is) or cannot apply it, and
 * the model changed nothing, the reply says why instead; when the model did revise the draft, its revision stands.
 */
async function applyEditsTheModelLeft(
  db: TDb,
  input: { userId: string; sessionId: string; text: string; before: string | null; reply: TSetupReply },
): Promise<void> {
  const edits = parseChatEdits(input.text);
  if (!edits) return;
  const state = await getSetupState(db, input);
  if (!state.draft || !state.tracker) return;
  const revised = JSON.stringify(state.draft.definition) !== input.before;
  const applied = applyChatEdits(state.draft.definition, edits);
  if (!applied.ok) {
    if (!revised) input.reply.say(`I did not change the card for “${input.text}”: ${applied.message}`, "info");
    return;
  }
  const changesDefinition = JSON.stringify(applied.definition) !== JSON.stringify(state.draft.definition);
  const changesSchedule = applied.scheduleMinutes !== null && applied.scheduleMinutes !== state.tracker.scheduleMinutes;
  if (!changesDefinition && !changesSchedule) return;
  if (applied.guessed) {
    if (!revised) input.reply.say(`I did not change the card for “${input.text}”: ${applied.guessed}`, "question");
    return;
  }
  const saved = changesDefinition
    ? await saveSetupDraft(db, { ...input, definition: applied.definition })
    : { ...state.draft, scheduleMinutes: state.tracker.scheduleMinutes, trackerId: state.tracker.id };
  if (changesSchedule && applied.scheduleMinutes !== null) {
    await setSetupSchedule(db, { ...input, scheduleMinutes: applied.scheduleMinutes });
  }
  input.reply.draftSaved({ ...saved, scheduleMinutes: applied.scheduleMinutes ?? saved.scheduleMinutes });
  input.reply.say(`As you asked: ${applied.said.join(" ")}`);
}

/**
 * The stored conversation as the model reads it: the person's messages, the replies' text and the errors
 * code reported (so the model knows a page could not be read); info notes are for the person only.
 */
export function toModelHistory(messages: TSetupUIMessage[]): ModelMessage[] {
  return messages
    .filter((m) => m.metadata?.kind !== "info")
    .flatMap((m): ModelMessage[] => {
      const content = m.parts
        .map((p) => (p.type === "text" ? p.text : p.type === "data-error" ? p.data.message : ""))
        .filter(Boolean)
        .join("\n");
      return content ? [{ role: m.role === "user" ? "user" : "assistant", content }] : [];
    });
}
