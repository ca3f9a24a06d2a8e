"use client";

import { useChat } from "@ai-sdk/react";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useMemo, useRef, useState } from "react";
import type { TSetupState } from "@/components/providers/router-outputs";
import { useTRPC } from "@/components/providers/trpc";
import { messageText, setupDataSchemas, ZSetupMetadataSchema } from "@/contracts/setup-ui-message";
import { createSetupTransport } from "./setup-transport";
import { afterLockHref, type TSavedDraft, type TSetupSnapshot, toSetupSnapshot } from "./setup-view";
import type { TSetupUIMessage } from "./types";
import { usePendingReply } from "./use-pending-reply";

export type TNotice = { tone: "info" | "error"; text: string };

/**
 * The setup conversation's state: the session (created on the first send, once, even if sends race), useChat over
 * the setup transport, the progress line, the saved draft and the tracker as the reply's data parts bring them, and a
 * refused turn's message put back into the box. A reload mid-turn picks up the stored reply (usePendingReply).
 */
export function useSetupConversation(initial: TSetupSnapshot | null, initialNotice: string | null) {
  const trpc = useTRPC();
  const router = useRouter();
  const [input, setInput] = useState("");
  const [progress, setProgress] = useState<string | null>(null);
  const [savedDraft, setSavedDraft] = useState<TSavedDraft | null>(initial?.draft ?? null);
  // Known once the page is bound (the sample part names it), so files can be attached before the first draft.
  const [trackerId, setTrackerId] = useState<string | null>(initial?.trackerId ?? initial?.draft?.trackerId ?? null);
  const [notice, setNotice] = useState<TNotice | null>(initialNotice ? { tone: "info", text: initialNotice } : null);
  /** An edit of a locked tracker (the edit page): the version in force, which the draft would replace. */
  const editedFrom = initial?.lockedVersion ?? null;
  const start = useMutation(trpc.setup.start.mutationOptions());

  const session = useRef<{ id: string | null; starting?: Promise<string> }>({ id: initial?.sessionId ?? null });
  const startSession = start.mutateAsync;
  const transport = useMemo(
    () =>
      createSetupTransport(async () => {
        if (session.current.id) return session.current.id;
        session.current.starting ??= startSession().then((started) => {
          session.current.id = started.sessionId;
          window.history.replaceState(null, "", `/trackers/new?session=${encodeURIComponent(started.sessionId)}`);
          if (started.closedSessions > 0) {
            setNotice({
              tone: "info",
              text: `You had more unfinished setups than are kept, so the ${started.closedSessions === 1 ? "oldest one was" : `${started.closedSessions} oldest were`} closed.`,
            });
          }
          return started.sessionId;
        });
        try {
          return await session.current.starting;
        } finally {
          session.current.starting = undefined;
        }
      }),
    [startSession],
  );

  const chat = useChat<TSetupUIMessage>({
    id: initial?.sessionId,
    messages: initial?.messages ?? [],
    transport,
    dataPartSchemas: setupDataSchemas,
    messageMetadataSchema: ZSetupMetadataSchema,
    onData: (part) => {
      if (part.type === "data-status") setProgress(part.data.text);
      else if (part.type === "data-sample") {
        setProgress(null);
        if (part.data.trackerId) setTrackerId(part.data.trackerId);
      } else if (part.type === "data-draft" && part.data.status === "saved") {
        const { view, version, definition, scheduleMinutes, trackerId: draftTracker } = part.data;
        setSavedDraft({ view, version, definition, scheduleMinutes, trackerId: draftTracker });
        if (draftTracker) setTrackerId(draftTracker);
      } else if (part.type === "data-locked") {
        router.push(afterLockHref(part.data.trackerId, editedFrom, part.data.version));
      }
    },
    onFinish: () => setProgress(null),
    // A refused turn (busy, too long…) stored nothing: take the message back into the box, so it is not lost.
    onError: () => {
      setProgress(null);
      let refused = "";
      chat.setMessages((current) => {
        const last = current.at(-1);
        if (last?.role !== "user") return current;
        refused = messageText(last);
        return current.slice(0, -1);
      });
      if (refused) setInput((now) => now || refused);
    },
  });
  const { messages, setMessages, status } = chat;
  const busy = status === "submitted" || status === "streaming";

  // Reloaded mid-turn: pick up the reply once the server has stored it.
  const initialCount = initial?.messages.length ?? 0;
  usePendingReply({
    sessionId: session.current.id,
    waiting: status === "ready" && messages.length === initialCount && messages.at(-1)?.role === "user",
    onState: useCallback(
      (state: TSetupState) => {
        if (state.messages.length <= initialCount) return;
        const next = toSetupSnapshot(state);
        setMessages(next.messages);
        setSavedDraft(next.draft);
        setTrackerId(next.trackerId);
      },
      [initialCount, setMessages],
    ),
  });

  const send = () => {
    const text = input.trim();
    if (!text || busy) return;
    setInput("");
    setNotice(null);
    void chat.sendMessage({ text });
  };

  return {
    session,
    chat,
    busy,
    input,
    setInput,
    send,
    progress,
    savedDraft,
    setSavedDraft,
    trackerId,
    notice,
    setNotice,
    editedFrom,
    initialCount,
  };
}

export type TSetupConversation = ReturnType<typeof useSetupConversation>;
