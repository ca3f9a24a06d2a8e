"use client";

import { useChat } from "@ai-sdk/react";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary, focusRing } from "@/components/ui/button-styles";
import {
  MAX_SETUP_MESSAGE_CHARS,
  messageText,
  setupDataSchemas,
  ZSetupMetadataSchema,
} from "@/contracts/setup-ui-message";
import type { TSetupState } from "@/server/intelligence/setup/session";
import { ChatBubbles } from "./chat-bubbles";
import { DraftCard } from "./draft-card";
import { PageView } from "./page-view";
import { PriceCandidates } from "./price-candidates";
import { ReplayPanel } from "./replay-panel";
import { SetupContextFiles } from "./setup-context-files";
import { createSetupTransport } from "./setup-transport";
import {
  afterLockHref,
  cardDraft,
  hasLocked,
  latestSample,
  readableError,
  streamingDraft,
  type TSavedDraft,
  type TSetupSnapshot,
  toBubbles,
  toSetupSnapshot,
} from "./setup-view";
import type { TSetupUIMessage } from "./types";
import { usePendingReply } from "./use-pending-reply";

/** A visible keyboard focus on the chat's two actions (the shared button styles have none). */

type TProps = {
  /** The stored conversation to resume (from ?session=… or the edit page), or null for a new one. */
  initial: TSetupSnapshot | null;
  aiOn: boolean;
  /** Shown above the chat, e.g. why a linked conversation is gone. */
  notice?: string | null;
  /** Opened to fix a field that stopped reading: the page view reads the page again at once. */
  fixOnPage?: boolean;
};

/**
 * The chat-first tracker setup: conversation on the left, live draft card on the right. useChat owns
 * the conversation (AI SDK UI messages, streamed by /api/setup/[sessionId]); the card shows the draft
 * part of the reply while it streams, else the saved draft (also changed by direct edits). Nothing is
 * replaced by a reload of server state mid-conversation, so nothing on screen blinks between turns.
 */
export function SetupChat({ initial, aiOn, notice: initialNotice = null, fixOnPage = false }: TProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const [input, setInput] = useState("");
  const [progress, setProgress] = useState<string | null>(null);
  const [savedDraft, setSavedDraft] = useState<TSavedDraft | null>(initial?.draft ?? null);
  // Known once the page is bound (the sample part names it), so files can be attached before the first draft.
  const [trackerId, setTrackerId] = useState<string | null>(initial?.trackerId ?? initial?.draft?.trackerId ?? null);
  const [notice, setNotice] = useState<{ tone: "info" | "error"; text: string } | null>(
    initialNotice ? { tone: "info", text: initialNotice } : null,
  );
  const endRef = useRef<HTMLDivElement>(null);
  /** An edit of a locked tracker (the edit page): the version in force, which the draft would replace. */
  const editedFrom = initial?.lockedVersion ?? null;
  const start = useMutation(trpc.setup.start.mutationOptions());
  const saveDraft = useMutation(trpc.setup.saveDraft.mutationOptions());
  const lock = useMutation(trpc.setup.lock.mutationOptions());
  const applyContextFiles = useMutation(trpc.setup.applyContextFiles.mutationOptions());
  const setReadMode = useMutation(trpc.setup.setReadMode.mutationOptions());
  /** Bumped when the sample is read again another way, so the page view asks for the new page. */
  const [readCount, setReadCount] = useState(0);

  // The conversation is created on the first send (once, even if sends race) and kept addressable.
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

  const { messages, sendMessage, setMessages, status, error } = useChat<TSetupUIMessage>({
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
      setMessages((current) => {
        const last = current.at(-1);
        if (last?.role !== "user") return current;
        refused = messageText(last);
        return current.slice(0, -1);
      });
      if (refused) setInput((now) => now || refused);
    },
  });
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

  const bubbles = toBubbles(messages);
  const lastLength = bubbles.at(-1)?.text.length ?? 0;
  useEffect(() => {
    if (bubbles.length + lastLength > 0) endRef.current?.scrollIntoView?.({ block: "end" });
  }, [bubbles.length, lastLength]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || busy) return;
    setInput("");
    setNotice(null);
    void sendMessage({ text });
  };

  // Direct edits on the card: validated by the server; a rejection is shown inline on the card.
  const saveDefinition = async (definition: unknown) => {
    if (!session.current.id) throw new Error("There is no conversation to save this draft to yet.");
    setSavedDraft(await saveDraft.mutateAsync({ sessionId: session.current.id, definition }));
  };

  // The card's read-mode switch: the server re-reads the sample that way; the card and a notice say what changed.
  const switchReadMode = async (render: "auto" | "always" | "never") => {
    if (!session.current.id) throw new Error("There is no conversation to change yet.");
    const result = await setReadMode.mutateAsync({ sessionId: session.current.id, render });
    if (result.draft) setSavedDraft(result.draft);
    setReadCount((n) => n + 1);
    setNotice({ tone: "info", text: result.said.join(" ") });
  };

  // Files attached while drafting: the draft takes them in now (a stated "our price is 10.00" → a rule on the card).
  const applyFiles = applyContextFiles.mutateAsync;
  const onFilesAttached = useCallback(async () => {
    if (!session.current.id) return;
    try {
      const applied = await applyFiles({ sessionId: session.current.id });
      if (applied) {
        setSavedDraft(applied.draft);
        setNotice({ tone: "info", text: applied.said.join(" ") });
      }
    } catch (e) {
      setNotice({ tone: "error", text: e instanceof Error ? e.message : String(e) });
    }
  }, [applyFiles]);

  const onLock = async () => {
    if (!session.current.id) return;
    setNotice(null);
    try {
      const result = await lock.mutateAsync({ sessionId: session.current.id });
      router.push(afterLockHref(result.trackerId, editedFrom, result.version));
    } catch (e) {
      setNotice({ tone: "error", text: e instanceof Error ? e.message : String(e) });
    }
  };

  const card = cardDraft(busy ? streamingDraft(messages.at(-1)) : null, savedDraft);
  const locked = (initial?.locked ?? false) || hasLocked(messages.slice(initialCount));
  const sample = latestSample(messages) ?? initial?.sample ?? null;
  const replyStarted = busy && messages.at(-1)?.role === "assistant" && bubbles.at(-1)?.role === "assistant";

  return (
    <div className="grid gap-6 lg:grid-cols-5">
      <section aria-label="Setup conversation" className="flex flex-col gap-3 lg:col-span-3">
        {!aiOn ? (
          <p
            data-testid="ai-off-note"
            className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200"
          >
            AI is off (rules mode): I bind the address in your message, draft fields from the page's structure, and you
            review them on the card and press Lock.
          </p>
        ) : null}
        {notice ? (
          <p
            role={notice.tone === "error" ? "alert" : "status"}
            data-testid="setup-notice"
            className={`text-sm ${notice.tone === "error" ? "text-red-700 dark:text-red-400" : "text-stone-600 dark:text-stone-400"}`}
          >
            {notice.text}
          </p>
        ) : null}
        <ol className="flex flex-col gap-2" data-testid="chat-messages" aria-live="polite">
          {bubbles.length === 0 && !busy ? (
            <li className="text-sm text-stone-600 dark:text-stone-400">
              Say what you want to keep an eye on and why, with the page address — e.g. “Tell me if Acme's pricing page
              undercuts our $49 plan — https://acme.example/pricing”.
            </li>
          ) : null}
          <ChatBubbles bubbles={bubbles} />
          {busy && progress ? (
            <li className="text-sm text-stone-600 dark:text-stone-400" role="status" data-testid="chat-status">
              {progress}
            </li>
          ) : null}
          {busy && !progress && !replyStarted ? (
            <li className="text-sm text-stone-600 dark:text-stone-400" role="status">
              Thinking…
            </li>
          ) : null}
        </ol>
        <div ref={endRef} />
        {sample ? (
          <details
            data-testid="sample"
            className="rounded-md border border-stone-200 p-3 text-sm dark:border-stone-800"
          >
            <summary className="cursor-pointer">Sample read from {sample.target}</summary>
            <pre className="mt-2 max-h-80 overflow-auto whitespace-pre-wrap break-all text-xs">
              {JSON.stringify(sample.document, null, 2)}
            </pre>
          </details>
        ) : null}
        {error ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400" data-testid="setup-error">
            {readableError(error)}
          </p>
        ) : null}
        {locked ? (
          <p className="text-sm text-stone-600 dark:text-stone-400">This definition is locked.</p>
        ) : (
          <form onSubmit={onSubmit} className="flex gap-2">
            <label htmlFor="setup-input" className="sr-only">
              Message
            </label>
            <textarea
              id="setup-input"
              data-testid="setup-input"
              rows={2}
              maxLength={MAX_SETUP_MESSAGE_CHARS}
              value={input}
              onChange={(e) => setInput(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) onSubmit(e);
              }}
              placeholder="What should I watch, and why?"
              className="flex-1 rounded-md border border-stone-300 bg-transparent p-2 text-sm dark:border-stone-700"
            />
            {/* Send is secondary: once a draft is on the card, Lock is the step that matters. */}
            <button type="submit" className={`${buttonSecondary} ${focusRing}`} disabled={busy || !input.trim()}>
              Send
            </button>
          </form>
        )}
      </section>
      <div className="flex flex-col gap-3 lg:col-span-2">
        <DraftCard
          draft={card.view}
          streaming={card.streaming}
          version={savedDraft?.version ?? null}
          editable={!!savedDraft && !busy && !locked}
          definition={savedDraft?.definition}
          scheduleMinutes={savedDraft?.scheduleMinutes}
          onSaveDefinition={saveDefinition}
          onSetReadMode={switchReadMode}
        />
        {savedDraft && session.current.id ? (
          <PriceCandidates
            sessionId={session.current.id}
            definition={savedDraft.definition}
            editable={!busy && !locked}
            onChosen={(draft, said) => {
              setSavedDraft(draft);
              setNotice({ tone: "info", text: said });
            }}
          />
        ) : null}
        {savedDraft && !locked ? (
          <button
            type="button"
            onClick={() => void onLock()}
            disabled={busy || lock.isPending}
            className={`${buttonPrimary} ${focusRing} w-full`}
            data-testid="lock-button"
          >
            {lock.isPending ? "Locking…" : `Lock v${savedDraft.version} and start tracking`}
          </button>
        ) : null}
        {!locked ? <SetupContextFiles trackerId={trackerId} busy={busy} onAttached={onFilesAttached} /> : null}
      </div>
      {/* The page with what is watched on it: web pages only, across the whole width (a page needs room). */}
      {savedDraft && session.current.id && savedDraft.view.readMode ? (
        <div className="lg:col-span-5">
          <PageView
            sessionId={session.current.id}
            definition={savedDraft.definition}
            sampleKey={readCount}
            editable={!busy && !locked}
            rereadOnOpen={fixOnPage}
            onChosen={(draft, said) => {
              setSavedDraft(draft);
              setNotice({ tone: "info", text: said });
            }}
          />
        </div>
      ) : null}
      {/* Revising a locked tracker: replay the draft over the stored history. Below the card, across the whole
          width on a wide screen, so the two timelines have room side by side. */}
      {savedDraft?.trackerId && editedFrom !== null && !locked ? (
        <div className="lg:col-span-5">
          <ReplayPanel
            trackerId={savedDraft.trackerId}
            lockedVersion={editedFrom}
            draftVersion={savedDraft.version}
            definition={savedDraft.definition}
            aiOn={aiOn}
            disabled={busy}
          />
        </div>
      ) : null}
    </div>
  );
}
