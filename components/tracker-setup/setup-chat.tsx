"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { DraftCard } from "./draft-card";
import { readEvents, type TChatMessage, type TDraftView } from "./types";

type TProps = {
  /** An existing conversation to resume (from ?session=… or the edit page). */
  initialSessionId: string | null;
  aiOn: boolean;
};

type TDefinition = { fields: { name: string; description: string }[]; materiality: Record<string, unknown> };

/** The chat-first tracker setup: conversation on the left, live draft card on the right. */
export function SetupChat({ initialSessionId, aiOn }: TProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const [sessionId, setSessionId] = useState(initialSessionId);
  const [messages, setMessages] = useState<TChatMessage[]>([]);
  const [streamingText, setStreamingText] = useState<{ id: string; text: string } | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [sample, setSample] = useState<{ target: string; document: unknown } | null>(null);
  const [draft, setDraft] = useState<TDraftView | null>(null);
  const [draftDefinition, setDraftDefinition] = useState<TDefinition | null>(null);
  const [draftVersion, setDraftVersion] = useState<number | null>(null);
  const [draftStreaming, setDraftStreaming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [input, setInput] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [locked, setLocked] = useState(false);
  const endRef = useRef<HTMLDivElement>(null);

  const stateQuery = useQuery({
    ...trpc.setup.state.queryOptions({ sessionId: sessionId ?? "" }),
    enabled: sessionId !== null,
    refetchOnWindowFocus: false,
    // Reloaded mid-turn: the turn carries on on the server; poll until its reply is persisted (bounded).
    refetchInterval: (query) => {
      const last = query.state.data?.messages.at(-1);
      return !busy && last?.role === "user" && query.state.dataUpdateCount < 120 ? 1000 : false;
    },
  });
  const start = useMutation(trpc.setup.start.mutationOptions());
  const saveDraft = useMutation(trpc.setup.saveDraft.mutationOptions());
  const lock = useMutation(trpc.setup.lock.mutationOptions());

  // Server state → local state whenever it (re)loads; streaming events update local state in between.
  useEffect(() => {
    const data = stateQuery.data;
    if (!data || busy) return;
    setMessages(data.messages);
    const s = data.sample as { label?: string; results?: { document?: unknown } } | null;
    setSample(s ? { target: s.label ?? "the target", document: s.results?.document ?? s.results ?? null } : null);
    setDraft(data.draft?.view ?? null);
    setDraftDefinition((data.draft?.definition as TDefinition | undefined) ?? null);
    setDraftVersion(data.draft?.version ?? null);
    setLocked(data.status === "locked");
  }, [stateQuery.data, busy]);

  // Keep the newest message in view as the transcript grows or a reply streams in.
  const transcriptSize = messages.length + (streamingText?.text.length ?? 0);
  useEffect(() => {
    if (transcriptSize > 0) endRef.current?.scrollIntoView?.({ block: "end" });
  }, [transcriptSize]);

  const send = useCallback(
    async (text: string) => {
      setError(null);
      setBusy(true);
      try {
        let id = sessionId;
        if (!id) {
          id = (await start.mutateAsync()).sessionId;
          setSessionId(id);
          // Keep the conversation addressable: a reload resumes it.
          window.history.replaceState(null, "", `/trackers/new?session=${encodeURIComponent(id)}`);
        }
        const res = await fetch(`/api/setup/${encodeURIComponent(id)}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ text }),
        });
        if (!res.ok) {
          const body = (await res.json().catch(() => null)) as { message?: string } | null;
          throw new Error(body?.message ?? `The server answered ${res.status}.`);
        }
        let lockedTracker: string | null = null;
        // A streamed draft that never got saved (e.g. it failed validation) must not stay on the card.
        let savedDraft: TDraftView | null = draft;
        let partialPending = false;
        await readEvents(res, (event) => {
          switch (event.type) {
            case "message":
              setMessages((prev) => [...prev.filter((m) => m.id !== event.message.id), event.message]);
              setStreamingText((cur) => (cur?.id === event.message.id ? null : cur));
              break;
            case "assistant-delta":
              setStreamingText({ id: event.id, text: event.text });
              break;
            case "status":
              setStatus(event.text);
              break;
            case "sample":
              setSample({ target: event.target, document: event.sample });
              setStatus(null);
              break;
            case "draft-partial":
              partialPending = true;
              setDraft(event.draft);
              setDraftStreaming(true);
              break;
            case "draft":
              partialPending = false;
              savedDraft = event.draft;
              setDraft(event.draft);
              setDraftVersion(event.version);
              setDraftStreaming(false);
              break;
            case "locked":
              lockedTracker = event.trackerId;
              setLocked(true);
              break;
            case "done":
              if (partialPending) setDraft(savedDraft);
              setStatus(null);
              setDraftStreaming(false);
              break;
          }
        });
        setStreamingText(null);
        if (lockedTracker) {
          router.push(`/trackers/${lockedTracker}`);
          return;
        }
      } catch (e) {
        setError(e instanceof Error ? e.message : String(e));
      } finally {
        setBusy(false);
        setStatus(null);
        setDraftStreaming(false);
        if (sessionId) void stateQuery.refetch();
      }
    },
    [sessionId, start, router, stateQuery, draft],
  );

  // After the first turn of a new session, load the persisted state (the draft's full definition).
  useEffect(() => {
    if (sessionId && !busy) void stateQuery.refetch();
  }, [sessionId, busy, stateQuery.refetch]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || busy) return;
    setInput("");
    void send(text);
  };

  // Direct edits on the card: validated by the server; a rejection is shown inline on the card.
  const saveDefinition = async (definition: unknown) => {
    if (!sessionId) throw new Error("There is no conversation to save this draft to yet.");
    await saveDraft.mutateAsync({ sessionId, definition });
    await stateQuery.refetch();
  };

  const onLock = async () => {
    if (!sessionId) return;
    setError(null);
    try {
      const result = await lock.mutateAsync({ sessionId });
      router.push(`/trackers/${result.trackerId}`);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  const canEdit = !!draftDefinition && !busy && !locked;

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
        <ol className="flex flex-col gap-2" data-testid="chat-messages" aria-live="polite">
          {messages.length === 0 && !busy ? (
            <li className="text-sm text-stone-600 dark:text-stone-400">
              Say what you want to keep an eye on and why, with the page address — e.g. “Tell me if Acme's pricing page
              undercuts our $49 plan — https://acme.example/pricing”.
            </li>
          ) : null}
          {messages.map((m) => (
            <ChatBubble key={m.id} message={m} />
          ))}
          {streamingText ? (
            <ChatBubble
              message={{ id: streamingText.id, role: "assistant", parts: [{ type: "text", text: streamingText.text }] }}
            />
          ) : null}
          {status ? (
            <li className="text-sm text-stone-500" role="status" data-testid="chat-status">
              {status}
            </li>
          ) : null}
          {busy && !status && !streamingText ? (
            <li className="text-sm text-stone-500" role="status">
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
            {error}
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
              value={input}
              onChange={(e) => setInput(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) onSubmit(e);
              }}
              placeholder="What should I watch, and why?"
              className="flex-1 rounded-md border border-stone-300 bg-transparent p-2 text-sm dark:border-stone-700"
            />
            <button type="submit" className={buttonPrimary} disabled={busy || !input.trim()}>
              Send
            </button>
          </form>
        )}
      </section>
      <div className="flex flex-col gap-3 lg:col-span-2">
        <DraftCard
          draft={draft}
          streaming={draftStreaming}
          version={draftVersion}
          editable={canEdit}
          definition={draftDefinition}
          onSaveDefinition={saveDefinition}
        />
        {draftDefinition && !locked ? (
          <button
            type="button"
            onClick={() => void onLock()}
            disabled={busy || lock.isPending}
            className={buttonSecondary}
            data-testid="lock-button"
          >
            Lock v{draftVersion ?? 1} and start tracking
          </button>
        ) : null}
      </div>
    </div>
  );
}

function ChatBubble({ message }: { message: TChatMessage }) {
  const text = message.parts.map((p) => p.text).join("");
  const kind = message.metadata?.kind ?? "text";
  const tone =
    message.role === "user"
      ? "self-end bg-stone-900 text-white dark:bg-stone-100 dark:text-stone-900"
      : kind === "error"
        ? "border border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        : "border border-stone-200 bg-white dark:border-stone-800 dark:bg-stone-900";
  return (
    <li
      data-testid="chat-message"
      data-role={message.role}
      data-kind={kind}
      className={`max-w-[90%] whitespace-pre-wrap rounded-lg px-3 py-2 text-sm ${tone}`}
    >
      {text}
    </li>
  );
}
