import { randomUUID } from "node:crypto";
import { readUIMessageStream } from "ai";
import type { TLanguageModel } from "@/server/ai";
import type { TCapabilityConfig } from "@/server/capabilities";
import type { TDb } from "@/server/db";
import {
  startSetupTurn,
  type TSetupDataTypes,
  type TSetupUIMessage,
  validateSetupMessage,
} from "@/server/intelligence/setup";

export type TBubble = { kind: string; text: string };

/**
 * Runs one setup turn the way the page does — reads the reply's UI message stream with the AI SDK's
 * readUIMessageStream, and checks every state of the reply against the setup message schema, as useChat
 * does with its data part schemas — and waits until the reply is stored. `snapshots` are the reply as it grew.
 */
export async function setupTurn(
  db: TDb,
  input: { userId: string; sessionId: string; text: string; config: TCapabilityConfig; model: TLanguageModel | null },
) {
  const turn = await startSetupTurn(db, {
    userId: input.userId,
    sessionId: input.sessionId,
    message: { id: randomUUID(), text: input.text },
    config: input.config,
    model: input.model,
  });
  const snapshots: TSetupUIMessage[] = [];
  for await (const snapshot of readUIMessageStream<TSetupUIMessage>({ stream: turn.stream })) {
    if (!(await validateSetupMessage(snapshot))) {
      throw new Error(`the reply streamed an invalid state: ${JSON.stringify(snapshot.parts)}`);
    }
    snapshots.push(snapshot);
  }
  await turn.done;
  const reply = snapshots.at(-1);
  if (!reply) throw new Error("the turn streamed no reply");
  const replies = bubbles(reply);
  return { reply, snapshots, replies, last: replies.at(-1) };
}

/** The chat bubbles a reply shows, as the page renders them: text parts (styled by kind) and error parts. */
export function bubbles(message: TSetupUIMessage): TBubble[] {
  const kind = message.metadata?.kind ?? "text";
  return message.parts.flatMap((p) => {
    if (p.type === "text") return [{ kind, text: p.text }];
    if (p.type === "data-error") return [{ kind: "error", text: p.data.message }];
    return [];
  });
}

/** The reply's data part of that name (the last one), or undefined. */
export function dataPart<K extends keyof TSetupDataTypes>(
  message: TSetupUIMessage,
  name: K,
): TSetupDataTypes[K] | undefined {
  const part = message.parts.findLast((p) => p.type === `data-${name}`);
  return part && "data" in part ? (part.data as TSetupDataTypes[K]) : undefined;
}
