"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonDanger, buttonSecondary } from "@/components/ui/button-styles";
import type { TDraftListItem } from "@/contracts/trackers";
import { formatDaysUntil } from "./format";
import { RelativeTime } from "./relative-time";

/**
 * Unfinished setups, apart from the trackers: each resumes its setup chat where it stopped or is discarded (after an
 * inline confirmation, so a stray tap loses nothing). Drafts nobody touches for 14 days go by themselves.
 */
export function DraftsList({
  drafts,
  asOf,
  onDiscarded,
}: {
  drafts: TDraftListItem[];
  asOf: Date;
  onDiscarded: (title: string) => void;
}) {
  if (drafts.length === 0) return null;
  return (
    <section aria-labelledby="drafts-heading" data-testid="drafts" className="space-y-3">
      <div>
        <h2 id="drafts-heading" className="text-lg font-semibold">
          Unfinished setups <span className="text-stone-600 dark:text-stone-400">({drafts.length})</span>
        </h2>
        <p className="text-sm text-stone-600 dark:text-stone-400">
          Drafts you started but did not lock. Resume one where you left off, or discard it; a draft left untouched for
          14 days is discarded automatically.
        </p>
      </div>
      <ul className="divide-y divide-stone-200 rounded-xl border border-stone-200 bg-white dark:divide-stone-800 dark:border-stone-800 dark:bg-stone-900">
        {drafts.map((draft) => (
          <DraftRow key={draft.id} draft={draft} asOf={asOf} onDiscarded={onDiscarded} />
        ))}
      </ul>
    </section>
  );
}

function DraftRow({
  draft,
  asOf,
  onDiscarded,
}: {
  draft: TDraftListItem;
  asOf: Date;
  onDiscarded: (title: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const discardRef = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  const discard = useMutation(
    trpc.tracker.discardDraft.mutationOptions({
      onSuccess: async () => {
        onDiscarded(draft.decision);
        await queryClient.invalidateQueries({ queryKey: trpc.tracker.pathKey() });
      },
    }),
  );
  // Focus follows the question: onto "Discard draft" when asked, back to "Discard" when kept.
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (wasConfirming.current) discardRef.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  const titleId = `draft-${draft.id}-title`;
  return (
    <li
      className="flex flex-col gap-3 p-4 sm:flex-row sm:items-start"
      data-testid="draft-row"
      data-tracker-id={draft.id}
    >
      <div className="min-w-0 flex-1">
        <p id={titleId} className="font-medium break-words">
          {draft.decision}
        </p>
        <p className="truncate text-xs text-stone-600 dark:text-stone-400" title={draft.target}>
          {draft.target}
        </p>
        <p className="mt-1 text-xs text-stone-600 dark:text-stone-400">
          Last edited <RelativeTime value={draft.touchedAt} asOf={asOf} /> · discarded automatically{" "}
          {formatDaysUntil(draft.discardAfter, asOf)} unless resumed
        </p>
      </div>
      {confirming ? (
        <fieldset className="flex flex-wrap items-center gap-2" aria-describedby={titleId}>
          <legend className="sr-only">Discard this draft?</legend>
          <span className="text-sm" aria-hidden="true">
            Discard this draft and its conversation?
          </span>
          <button
            ref={confirmRef}
            type="button"
            className={buttonDanger}
            disabled={discard.isPending}
            onClick={() => discard.mutate({ trackerId: draft.id })}
          >
            {discard.isPending ? "Discarding…" : "Discard draft"}
          </button>
          <button
            type="button"
            className={buttonSecondary}
            disabled={discard.isPending}
            onClick={() => setConfirming(false)}
          >
            Keep
          </button>
          {discard.isError ? (
            <p role="alert" className="w-full text-sm text-red-700 dark:text-red-400">
              {discard.error.message}
            </p>
          ) : null}
        </fieldset>
      ) : (
        <div className="flex flex-wrap gap-2">
          {draft.setupSessionId ? (
            <Link
              href={`/trackers/new?session=${encodeURIComponent(draft.setupSessionId)}`}
              className={buttonSecondary}
            >
              Resume<span className="sr-only"> “{draft.decision}”</span>
            </Link>
          ) : null}
          <button ref={discardRef} type="button" className={buttonSecondary} onClick={() => setConfirming(true)}>
            Discard<span className="sr-only"> “{draft.decision}”</span>
          </button>
        </div>
      )}
    </li>
  );
}
