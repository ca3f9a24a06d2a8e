import { z } from "zod";

/**
 * The setup chat's persisted transcript uses the AI SDK UI message shape ({id, role, parts}) so a
 * later move to useChat needs no migration; only text parts are written. `metadata.kind` lets the UI
 * style questions and errors.
 */
export const ZSetupMessageSchema = z.object({
  id: z.string(),
  role: z.enum(["user", "assistant"]),
  parts: z.array(z.object({ type: z.literal("text"), text: z.string() })),
  metadata: z.object({ kind: z.enum(["text", "question", "error", "info"]).optional() }).optional(),
});
export type TSetupMessage = z.infer<typeof ZSetupMessageSchema>;
export type TSetupMessageKind = NonNullable<NonNullable<TSetupMessage["metadata"]>["kind"]>;

/** What the draft card shows; tolerant of partial (streaming) definitions. */
export type TDraftView = {
  fields: { name: string; type: string; unit: string | null; description: string; extractor: string | null }[];
  identity: string | null;
  rules: string[];
};

export type TSetupEvent =
  | { type: "message"; message: TSetupMessage }
  | { type: "assistant-delta"; id: string; text: string }
  | { type: "status"; text: string }
  | { type: "sample"; sample: unknown; target: string }
  | { type: "draft-partial"; draft: TDraftView }
  | { type: "draft"; draft: TDraftView; version: number }
  | { type: "locked"; trackerId: string; version: number }
  | { type: "done" };

export type TEmit = (event: TSetupEvent) => void;

export function textMessage(role: "user" | "assistant", text: string, kind: TSetupMessageKind = "text"): TSetupMessage {
  return { id: crypto.randomUUID(), role, parts: [{ type: "text", text }], metadata: { kind } };
}

export function messageText(message: TSetupMessage): string {
  return message.parts.map((p) => p.text).join("");
}
