import { type ModelMessage, parsePartialJson, type StopCondition, streamText, tool } from "ai";
import { messageText, type TSetupUIMessage } from "@/contracts/setup-ui-message";
import type { TLanguageModel } from "../../ai";
import { wrapUntrusted } from "../../ai";
import type { TCapabilityConfig } from "../../capabilities";
import { listContextTexts } from "../../context";
import type { TDb } from "../../db";
import { toPublicError } from "../../errors";
import { parseDefinition } from "../definition";
import { applyContextFilesToDraft } from "./apply-context-files";
import { bindAndSample, type TSetupSample } from "./bind-and-sample";
import { checkContextValues } from "./check-context-values";
import { checkDraftAnchors } from "./check-draft-anchors";
import { toDraftView } from "./draft-view";
import { buildDrafterInstructions, SAMPLE_MAX_CHARS, sampleJsonForModel } from "./prompt";
import { parsePageReading } from "./read-page-for-draft";
import { lockSetup, saveSetupDraft } from "./save-setup-draft";
import { definitionToolInputSchema, ZBindCapabilityInputSchema, ZNoInputSchema } from "./schema";
import type { TSetupState } from "./session";
import type { TSetupReply } from "./setup-reply";

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
  const { userId, sessionId, reply, state } = input;

  const sample = state.sample as TSetupSample | null;
  // The sample drafts are checked against: the stored one, or the one fetched in this turn.
  let current: TSetupSample | null = sample;
  let pending: { capability: string; capabilityInput: unknown; label: string; title?: string | undefined } | null =
    null;
  let bound: { label: string } | null = state.tracker && sample ? { label: sample.label } : null;
  let invalidDrafts = 0;
  let gaveUp: string[] | null = null;
  let locked = false;
  const first = state.messages.find((m) => m.role === "user");
  const decision = first ? messageText(first) : input.text;
  // Files attached while drafting (issue 16): in the prompt as untrusted data, and what bound values are checked on.
  const files = state.tracker ? await listContextTexts(db, { userId, trackerId: state.tracker.id }) : [];

  const saveDefinition = async (definition: unknown) => {
    const parsed = parseDefinition(definition);
    // Anchored by meaning (check-draft-anchors.ts): a /prices/N field is refused when the page has better anchors.
    const anchors = parsed.ok
      ? checkDraftAnchors(parsed.definition, parsePageReading(current?.reading))
      : { problems: [], advice: [] };
    const errors = parsed.ok ? [...anchors.problems, ...checkContextValues(parsed.definition, files)] : parsed.errors;
    if (!parsed.ok || errors.length > 0) {
      invalidDrafts++;
      if (invalidDrafts >= 2) gaveUp = errors;
      return {
        ok: false,
        errors,
        note: invalidDrafts >= 2 ? "Still invalid; stop and let the person know." : "Fix these and call again once.",
      };
    }
    if (!bound) return { ok: false, errors: ["bind a target and fetch the sample first"] };
    const saved = await saveSetupDraft(db, { userId, sessionId, definition: parsed.definition });
    reply.draftSaved(saved);
    return {
      ok: true,
      saved: `draft v${saved.version}`,
      fields: parsed.definition.fields.map((f) => f.name),
      ...(anchors.advice.length ? { advice: anchors.advice } : {}),
    };
  };

  const tools = {
    bindCapability: tool({
      description: "Choose what to watch: a web page (web.scrape + url) or a Google Maps place (maps.place + placeId).",
      inputSchema: ZBindCapabilityInputSchema,
      execute: async (args) => {
        if (bound)
          return { ok: false, message: `Already bound to ${bound.label}. Start a new tracker to watch another.` };
        if (args.capability === "maps.place") {
          if (!args.placeId) return { ok: false, message: "maps.place needs a placeId" };
          pending = {
            capability: "maps.place",
            capabilityInput: { placeId: args.placeId },
            label: `Google Maps place ${args.placeId}`,
            title: args.title,
          };
        } else {
          if (!args.url) return { ok: false, message: "web.scrape needs a url" };
          pending = {
            capability: "web.scrape",
            capabilityInput: { url: args.url },
            label: args.url,
            title: args.title,
          };
        }
        return { ok: true, bound: pending.label, next: "call fetchSample" };
      },
    }),
    fetchSample: tool({
      description: "Read the bound target once (one real capability call) so the definition is grounded in real data.",
      inputSchema: ZNoInputSchema,
      execute: async () => {
        if (bound && sample) return { ok: true, sample: sampleForModel(sample) };
        if (!pending) return { ok: false, message: "call bindCapability first" };
        reply.status(`Reading ${pending.label}…`);
        const result = await bindAndSample(db, {
          userId,
          sessionId,
          decision,
          title: pending.title,
          capability: pending.capability,
          capabilityInput: pending.capabilityInput,
          label: pending.label,
          config: input.config,
        });
        if (!result.ok) {
          // Shown by code, not left to the model, so the person always sees why.
          reply.error(result.message);
          pending = null;
          return { ok: false, message: result.message, next: "ask the person for another address; do not retry" };
        }
        bound = { label: result.sample.label };
        current = result.sample;
        reply.sample(result.sample.label, result.sample.results.document ?? result.sample.results, result.trackerId);
        return { ok: true, sample: sampleForModel(result.sample) };
      },
    }),
    proposeDefinition: tool({
      description: "Propose the first complete draft definition (validated and saved as the draft).",
      inputSchema: definitionToolInputSchema,
      execute: async (args) => saveDefinition(args.definition),
    }),
    reviseDefinition: tool({
      description: "Replace the draft with a complete revised definition after the person asked for changes.",
      inputSchema: definitionToolInputSchema,
      execute: async (args) => saveDefinition(args.definition),
    }),
    lockDefinition: tool({
      description:
        "Lock the current draft as the next version and activate the tracker. Only after the person approves.",
      inputSchema: ZNoInputSchema,
      execute: async () => {
        try {
          const result = await lockSetup(db, { userId, sessionId });
          locked = true;
          reply.locked(result.trackerId, result.version);
          return { ok: true, version: result.version };
        } catch (error) {
          return { ok: false, message: toPublicError(error).message };
        }
      },
    }),
  };

  const history = toModelHistory(state.messages);
  // The current message is already the last persisted one; make sure it is last exactly once.
  if (history.at(-1)?.role !== "user" || history.at(-1)?.content !== input.text) {
    history.push({ role: "user", content: input.text });
  }

  const stopAfterGivingUp: StopCondition<typeof tools> = () => gaveUp !== null || locked;
  const result = streamText({
    model: input.model,
    instructions: buildDrafterInstructions({
      target: sample?.label ?? null,
      draftJson: state.draft ? JSON.stringify(state.draft.definition) : null,
      sampleJson: sample ? sampleJsonForModel(sample) : null,
      contextFiles: files,
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
  if (gaveUp) {
    reply.error(
      `The drafted definition did not pass validation, so nothing was saved:\n• ${(gaveUp as string[]).join("\n• ")}\nYou can ask me to try again or describe the change differently.`,
    );
  }
  // The deterministic proposal as the drafter's fallback: a stated "our price is 10.00" the model left unbound.
  if (files.length > 0 && !locked && !gaveUp) {
    const applied = await applyContextFilesToDraft(db, { userId, sessionId });
    if (applied) {
      reply.draftSaved(applied.draft);
      reply.say(applied.said.join(" "));
    }
  }
  if (reply.replies === 0 && !locked) reply.say("Done. Anything else to change before locking?");
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

function sampleForModel(sample: TSetupSample): string {
  return wrapUntrusted(sampleJsonForModel(sample), { source: sample.label, maxChars: SAMPLE_MAX_CHARS });
}
