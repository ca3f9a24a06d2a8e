import { DefaultChatTransport } from "ai";
import type { TSetupUIMessage } from "./types";

/**
 * useChat's transport for the setup chat: each turn POSTs only the new message to
 * /api/setup/[sessionId] (the server has the rest of the conversation). The session is created on the
 * first send, so opening the page never leaves an empty conversation behind.
 */
export function createSetupTransport(ensureSession: () => Promise<string>) {
  return new DefaultChatTransport<TSetupUIMessage>({
    api: "/api/setup",
    prepareSendMessagesRequest: async ({ messages }) => {
      const sessionId = await ensureSession();
      return { api: `/api/setup/${encodeURIComponent(sessionId)}`, body: { message: messages.at(-1) } };
    },
  });
}
