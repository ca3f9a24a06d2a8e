import { createUIMessageStream, readUIMessageStream, type UIMessageChunk } from "ai";
import { MAX_SETUP_MESSAGE_CHARS, type TSetupUIMessage, textMessage } from "@/contracts/setup-ui-message";
import { getModel, type TLanguageModel } from "../../ai";
import type { TCapabilityConfig } from "../../capabilities";
import type { TDb } from "../../db";
import { AppError, describeError, toPublicError } from "../../errors";
import type { TLogger } from "../../logger";
import { runSetupTurn } from "./run-setup-turn";
import { getSetupSession } from "./session";
import { appendSetupMessages, validateSetupMessage } from "./setup-messages";
import { createSetupReply } from "./setup-reply";
import { claimSetupTurn, releaseSetupTurn } from "./turns-in-flight";

export type TSetupTurn = {
  /** The reply as a UI message stream (text parts, typed data parts), for the page. */
  stream: ReadableStream<UIMessageChunk>;
  /** Settles once the reply is complete and stored, whether or not anyone read `stream`. Never rejects. */
  done: Promise<void>;
};

/**
 * Starts one setup turn. Checks (message, ownership, a turn already running) throw AppErrors before
 * anything streams; then the person's message is stored and the reply streams. The reply stream is
 * teed: one branch goes to the page, the other is read here to completion and stored as one message,
 * so the turn finishes and persists even if the page goes away (a reload resumes from stored
 * messages). Callers on serverless hosts keep the function alive until `done` (Next's `after`).
 */
export async function startSetupTurn(
  db: TDb,
  input: {
    userId: string;
    sessionId: string;
    message: { id: string; text: string };
    config: TCapabilityConfig;
    log?: TLogger;
    /** Defaults to getModel("drafter"); null = rules mode. */
    model?: TLanguageModel | null;
  },
): Promise<TSetupTurn> {
  const { userId, sessionId, log } = input;
  const text = input.message.text.trim();
  if (!text) throw new AppError("BAD_REQUEST", "Write a message first.");
  if (text.length > MAX_SETUP_MESSAGE_CHARS) {
    throw new AppError("BAD_REQUEST", `Keep a message under ${MAX_SETUP_MESSAGE_CHARS} characters.`);
  }
  // One turn at a time per conversation (in this process): a reply builds on the stored transcript.
  if (!claimSetupTurn(sessionId)) {
    throw new AppError("CONFLICT", "I am still answering your previous message; send this one when I am done.");
  }
  try {
    await getSetupSession(db, { userId, sessionId });
    await appendSetupMessages(db, { sessionId, messages: [textMessage("user", text, { id: input.message.id })] });
  } catch (error) {
    releaseSetupTurn(sessionId);
    throw error;
  }

  const model = input.model === undefined ? getModel("drafter") : input.model;
  const source = createUIMessageStream<TSetupUIMessage>({
    execute: async ({ writer }) => {
      writer.write({ type: "start" });
      await runSetupTurn(db, {
        userId,
        sessionId,
        text,
        config: input.config,
        model,
        log,
        reply: createSetupReply(writer),
      });
      writer.write({ type: "finish" });
    },
    onError: (error) => {
      log?.error("setup reply stream failed", { sessionId, error: describeError(error) });
      return toPublicError(error).message;
    },
  });
  const [toPage, toStore] = source.tee();
  const done = storeReply(db, { sessionId, stream: toStore, log }).finally(() => releaseSetupTurn(sessionId));
  return { stream: toPage, done };
}

async function storeReply(
  db: TDb,
  input: { sessionId: string; stream: ReadableStream<UIMessageChunk>; log?: TLogger },
): Promise<void> {
  try {
    let reply: TSetupUIMessage | undefined;
    for await (const snapshot of readUIMessageStream<TSetupUIMessage>({ stream: input.stream })) reply = snapshot;
    if (!reply || reply.parts.length === 0) return;
    // Stored either way (nothing lost); one that does not validate would be skipped on load, so say so now.
    if (!(await validateSetupMessage(reply))) {
      input.log?.error("setup reply does not validate as a setup message", { sessionId: input.sessionId });
    }
    await appendSetupMessages(db, { sessionId: input.sessionId, messages: [reply] });
  } catch (error) {
    input.log?.error("setup reply could not be stored", { sessionId: input.sessionId, error: describeError(error) });
  }
}
