import type { UIMessage } from "ai";
import { z } from "zod";
import { zText } from "./common";

/**
 * The setup chat's message type: an AI SDK UI message whose parts are text (the replies, streamed) and
 * typed data parts. It is the wire protocol (UI message stream → useChat), the stored transcript (one
 * SetupMessage row per message) and what the page renders — one shape everywhere (docs/design.md §3 "Setup").
 * Client-safe: zod and type imports only.
 */

/** What the draft card shows; tolerant of partial (streaming) definitions. */
export const ZDraftViewSchema = z.object({
  fields: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      unit: z.string().nullable(),
      description: z.string(),
      extractor: z.string().nullable(),
    }),
  ),
  identity: z.string().nullable(),
  rules: z.array(z.string()),
  /** Web pages: how the page is read — a plain fetch or a browser, and why (docs/page-reading.md). Absent for places. */
  reading: z.string().nullable().optional(),
  /** Web pages: the `render` mode the card's switch shows, and whether this server has a browser to render with. */
  readMode: z
    .object({ mode: z.enum(["auto", "always", "never"]), browser: z.boolean() })
    .nullable()
    .optional(),
});
export type TDraftView = z.infer<typeof ZDraftViewSchema>;

/**
 * The draft, written under one id per reply ("draft") so the card updates in place: partial views while
 * the definition streams in, then the saved draft (with its full definition, which direct edits start
 * from) — or "discarded" when what streamed in was never saved (it failed validation).
 */
export const ZSetupDraftDataSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("streaming"), view: ZDraftViewSchema }),
  z.object({
    status: z.literal("saved"),
    view: ZDraftViewSchema,
    version: z.number().int().positive(),
    definition: z.record(z.string(), z.unknown()),
    /** How often the tracker will check (minutes); absent in replies stored before the card showed it. */
    scheduleMinutes: z.number().int().positive().optional(),
    /** The draft tracker, so context files can be attached while drafting; absent in replies stored before. */
    trackerId: z.string().optional(),
  }),
  z.object({ status: z.literal("discarded") }),
]);
export type TSetupDraftData = z.infer<typeof ZSetupDraftDataSchema>;

/** Data part schemas by name (`data-<name>` on the wire); used to validate stored and streamed messages. */
export const setupDataSchemas = {
  /** The one real sample read when the target was bound (its structured document). */
  sample: z.object({
    target: z.string(),
    document: z.unknown(),
    /** The draft tracker the binding created, so files can be attached before the first draft; absent before. */
    trackerId: z.string().optional(),
  }),
  draft: ZSetupDraftDataSchema,
  /** A problem reported by code (unreachable page, invalid draft, failed turn); shown as an error bubble. */
  error: z.object({ message: z.string() }),
  /** Progress ("Reading …"); sent transient, never stored. */
  status: z.object({ text: z.string() }),
  /** The definition was locked: the page moves on to the tracker. */
  locked: z.object({ trackerId: z.string(), version: z.number().int().positive() }),
};

export type TSetupDataTypes = { [K in keyof typeof setupDataSchemas]: z.infer<(typeof setupDataSchemas)[K]> };

export const SETUP_MESSAGE_KINDS = ["text", "question", "error", "info"] as const;
export type TSetupMessageKind = (typeof SETUP_MESSAGE_KINDS)[number];

/**
 * How the reply's text reads: a question back, an info note, or plain text. ("error" is kept for
 * transcripts stored before errors became data parts.)
 */
export const ZSetupMetadataSchema = z.object({ kind: z.enum(SETUP_MESSAGE_KINDS).optional() });
export type TSetupMetadata = z.infer<typeof ZSetupMetadataSchema>;

export type TSetupUIMessage = UIMessage<TSetupMetadata, TSetupDataTypes>;
export type TSetupPart = TSetupUIMessage["parts"][number];

export const MAX_SETUP_MESSAGE_CHARS = 4_000;

/**
 * One turn's request: the person's new message only (the server has the rest). useChat sends the UI
 * message it just added; only its text parts count.
 */
export const ZSetupTurnRequestSchema = z.object({
  message: z.object({
    id: zText({ min: 1, max: 100, label: "The message id" }),
    role: z.literal("user"),
    parts: z
      .array(z.object({ type: z.string().max(40), text: zText({ max: 20_000, label: "A message" }).optional() }))
      .min(1)
      .max(20),
  }),
});
export type TSetupTurnRequest = z.infer<typeof ZSetupTurnRequestSchema>;

/** The text of a message's text parts. */
export function messageText(message: Pick<TSetupUIMessage, "parts">): string {
  return message.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/** A whole message with one text part (the person's messages; notes written by code). */
export function textMessage(
  role: "user" | "assistant",
  text: string,
  options: { id?: string; kind?: TSetupMessageKind } = {},
): TSetupUIMessage {
  return {
    id: options.id ?? crypto.randomUUID(),
    role,
    parts: [{ type: "text", text }],
    ...(options.kind ? { metadata: { kind: options.kind } } : {}),
  };
}
