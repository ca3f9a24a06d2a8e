import { type ModelMessage, parsePartialJson, type StopCondition, streamText, tool } from "ai";
import type { TLanguageModel } from "../../ai";
import { wrapUntrusted } from "../../ai";
import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { toPublicError } from "../../errors";
import { parseDefinition } from "../definition";
import { bindAndSample, type TSetupSample } from "./bind-and-sample";
import { toDraftView } from "./draft-view";
import { buildDrafterInstructions } from "./prompt";
import { lockSetup, saveSetupDraft } from "./save-setup-draft";
import { definitionToolInputSchema, ZBindCapabilityInputSchema, ZNoInputSchema } from "./schema";
import type { TSetupState } from "./session";
import { type TEmit, type TSetupMessage, textMessage } from "./types";

const MAX_STEPS = 6;
const DEFINITION_TOOLS = new Set(["proposeDefinition", "reviseDefinition"]);

/**
 * One chat turn of the drafter: an AI SDK tool-using agent (streamText + tools, several steps).
 * Draft tool arguments are streamed to the page as they are written (partial JSON → draft-partial
 * events); every definition is validated with parseDefinition before it is saved; an invalid one is
 * sent back for one repair and otherwise reported in the chat. Returns the assistant messages.
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
    emit: TEmit;
    signal?: AbortSignal;
  },
): Promise<TSetupMessage[]> {
  const { userId, sessionId, emit, state } = input;
  const out: TSetupMessage[] = [];
  const say = (text: string, kind: "text" | "error" | "info" | "question" = "text") => {
    const message = textMessage("assistant", text, kind);
    out.push(message);
    emit({ type: "message", message });
  };

  const sample = state.sample as TSetupSample | null;
  let pending: { capability: string; capabilityInput: unknown; label: string } | null = null;
  let bound: { label: string } | null = state.tracker && sample ? { label: sample.label } : null;
  let invalidDrafts = 0;
  let gaveUp: string[] | null = null;
  let locked = false;
  const decision = state.messages.find((m) => m.role === "user")?.parts[0]?.text ?? input.text;

  const saveDefinition = async (definition: unknown) => {
    const parsed = parseDefinition(definition);
    if (!parsed.ok) {
      invalidDrafts++;
      if (invalidDrafts >= 2) gaveUp = parsed.errors;
      return {
        ok: false,
        errors: parsed.errors,
        note: invalidDrafts >= 2 ? "Still invalid; stop and let the person know." : "Fix these and call again once.",
      };
    }
    if (!bound) return { ok: false, errors: ["bind a target and fetch the sample first"] };
    const saved = await saveSetupDraft(db, { userId, sessionId, definition: parsed.definition });
    emit({ type: "draft", draft: toDraftView(parsed.definition), version: saved.version });
    return { ok: true, saved: `draft v${saved.version}`, fields: parsed.definition.fields.map((f) => f.name) };
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
          };
        } else {
          if (!args.url) return { ok: false, message: "web.scrape needs a url" };
          pending = { capability: "web.scrape", capabilityInput: { url: args.url }, label: args.url };
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
        emit({ type: "status", text: `Reading ${pending.label}…` });
        const result = await bindAndSample(db, {
          userId,
          sessionId,
          decision,
          capability: pending.capability,
          capabilityInput: pending.capabilityInput,
          label: pending.label,
          config: input.config,
          signal: input.signal,
        });
        if (!result.ok) {
          // Shown by code, not left to the model, so the person always sees why.
          say(result.message, "error");
          pending = null;
          return { ok: false, message: result.message, next: "ask the person for another address; do not retry" };
        }
        bound = { label: result.sample.label };
        emit({
          type: "sample",
          sample: result.sample.results.document ?? result.sample.results,
          target: result.sample.label,
        });
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
          emit({ type: "locked", trackerId: result.trackerId, version: result.version });
          return { ok: true, version: result.version };
        } catch (error) {
          return { ok: false, message: toPublicError(error).message };
        }
      },
    }),
  };

  const history: ModelMessage[] = state.messages
    .filter((m) => m.metadata?.kind !== "info")
    .map((m) => ({ role: m.role, content: m.parts.map((p) => p.text).join("") }));
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
      sampleJson: sample ? JSON.stringify(sample.results.document ?? sample.results) : null,
    }),
    messages: history,
    tools,
    toolCallConcurrency: 1,
    stopWhen: [stopAfterGivingUp, ({ steps }) => steps.length >= MAX_STEPS],
    maxRetries: 1,
    abortSignal: input.signal,
  });

  const textId = crypto.randomUUID();
  let text = "";
  const toolBuffers = new Map<string, string>();
  let lastPartialKey = "";
  for await (const part of result.stream) {
    switch (part.type) {
      case "text-delta":
        text += part.text;
        emit({ type: "assistant-delta", id: textId, text });
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
          emit({ type: "draft-partial", draft: view });
        }
        break;
      }
      case "error":
        throw part.error;
      default:
        break;
    }
  }

  if (gaveUp) {
    say(
      `The drafted definition did not pass validation, so nothing was saved:\n• ${(gaveUp as string[]).join("\n• ")}\nYou can ask me to try again or describe the change differently.`,
      "error",
    );
  }
  if (text.trim()) {
    const message: TSetupMessage = {
      id: textId,
      role: "assistant",
      parts: [{ type: "text", text }],
      metadata: { kind: "text" },
    };
    out.push(message);
    emit({ type: "message", message });
  } else if (out.length === 0 && !locked) {
    say("Done. Anything else to change before locking?");
  }
  return out;
}

function sampleForModel(sample: TSetupSample): string {
  const document = sample.results.document ?? sample.results;
  return wrapUntrusted(JSON.stringify(document), { source: sample.label, maxChars: 8_000 });
}
