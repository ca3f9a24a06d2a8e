"use client";

import { buttonPrimary, focusRing } from "@/components/ui/button-styles";
import { DraftCard } from "./draft-card";
import { PageView } from "./page-view";
import { PriceCandidates } from "./price-candidates";
import { ReplayPanel } from "./replay-panel";
import { SetupContextFiles } from "./setup-context-files";
import { SetupConversation } from "./setup-conversation";
import { cardDraft, hasLocked, streamingDraft, type TSavedDraft, type TSetupSnapshot } from "./setup-view";
import { useDraftActions } from "./use-draft-actions";
import { useSetupConversation } from "./use-setup-conversation";

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
 * the conversation (AI SDK UI messages, streamed by /api/setup/[sessionId]; use-setup-conversation.ts); the card
 * shows the draft part of the reply while it streams, else the saved draft (also changed by direct edits,
 * use-draft-actions.ts). Nothing is replaced by a reload of server state mid-conversation, so nothing on screen
 * blinks between turns.
 */
export function SetupChat({ initial, aiOn, notice = null, fixOnPage = false }: TProps) {
  const conversation = useSetupConversation(initial, notice);
  const { session, busy, savedDraft, setSavedDraft, setNotice, trackerId, editedFrom, initialCount } = conversation;
  const { messages } = conversation.chat;
  const actions = useDraftActions(conversation);
  const card = cardDraft(busy ? streamingDraft(messages.at(-1)) : null, savedDraft);
  const locked = (initial?.locked ?? false) || hasLocked(messages.slice(initialCount));
  const chosen = (draft: TSavedDraft, said: string) => {
    setSavedDraft(draft);
    setNotice({ tone: "info", text: said });
  };

  return (
    <div className="grid gap-6 lg:grid-cols-5">
      <SetupConversation
        conversation={conversation}
        aiOn={aiOn}
        locked={locked}
        initialSample={initial?.sample ?? null}
      />
      <div className="flex flex-col gap-3 lg:col-span-2">
        <DraftCard
          draft={card.view}
          streaming={card.streaming}
          version={savedDraft?.version ?? null}
          editable={!!savedDraft && !busy && !locked}
          definition={savedDraft?.definition}
          scheduleMinutes={savedDraft?.scheduleMinutes}
          onSaveDefinition={actions.saveDefinition}
          onSetReadMode={actions.switchReadMode}
          aiOn={aiOn}
        />
        {savedDraft && session.current.id ? (
          <PriceCandidates
            sessionId={session.current.id}
            definition={savedDraft.definition}
            editable={!busy && !locked}
            onChosen={chosen}
          />
        ) : null}
        {savedDraft && !locked ? (
          <button
            type="button"
            onClick={() => void actions.onLock()}
            disabled={busy || actions.locking}
            className={`${buttonPrimary} ${focusRing} w-full`}
            data-testid="lock-button"
          >
            {/* An edit of a live tracker is tracking already: its button only locks the new version. */}
            {actions.locking
              ? "Locking…"
              : editedFrom !== null
                ? `Lock v${savedDraft.version}`
                : `Lock v${savedDraft.version} and start tracking`}
          </button>
        ) : null}
        {!locked ? <SetupContextFiles trackerId={trackerId} busy={busy} onAttached={actions.onFilesAttached} /> : null}
      </div>
      {/* The page with what is watched on it: web pages only, across the whole width (a page needs room). */}
      {savedDraft && session.current.id && savedDraft.view.readMode ? (
        <div className="lg:col-span-5">
          <PageView
            sessionId={session.current.id}
            definition={savedDraft.definition}
            sampleKey={actions.readCount}
            editable={!busy && !locked}
            rereadOnOpen={fixOnPage}
            onChosen={chosen}
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
