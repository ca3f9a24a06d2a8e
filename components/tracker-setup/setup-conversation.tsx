"use client";

import { type FormEvent, useEffect, useRef } from "react";
import { buttonSecondary, focusRing } from "@/components/ui/button-styles";
import { MAX_SETUP_MESSAGE_CHARS } from "@/contracts/setup-ui-message";
import { ChatBubbles } from "./chat-bubbles";
import { latestSample, readableError, type TSetupSnapshot, toBubbles } from "./setup-view";
import type { TSetupConversation } from "./use-setup-conversation";

type TProps = {
  conversation: TSetupConversation;
  aiOn: boolean;
  locked: boolean;
  /** The sample read before this page was opened (a resumed conversation). */
  initialSample: TSetupSnapshot["sample"] | null;
};

/** The conversation column of the setup: notes, the messages as they stream, the sample read, and the message box. */
export function SetupConversation({ conversation, aiOn, locked, initialSample }: TProps) {
  const { chat, busy, progress, notice, input, setInput, send } = conversation;
  const { messages, error } = chat;
  const endRef = useRef<HTMLDivElement>(null);
  const bubbles = toBubbles(messages);
  const lastLength = bubbles.at(-1)?.text.length ?? 0;
  useEffect(() => {
    if (bubbles.length + lastLength > 0) endRef.current?.scrollIntoView?.({ block: "end" });
  }, [bubbles.length, lastLength]);
  const sample = latestSample(messages) ?? initialSample;
  const replyStarted = busy && messages.at(-1)?.role === "assistant" && bubbles.at(-1)?.role === "assistant";
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    send();
  };

  return (
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
        <details data-testid="sample" className="rounded-md border border-stone-200 p-3 text-sm dark:border-stone-800">
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
  );
}
