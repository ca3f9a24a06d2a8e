"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useId, useRef, useState } from "react";
import type { TRouterOutputs } from "@/components/providers/router-outputs";
import { useTRPC } from "@/components/providers/trpc";
import { buttonDanger, buttonSecondary, focusRing } from "@/components/ui/button-styles";
import { formatDaysUntil } from "./format";
import { RelativeTime } from "./relative-time";

export type TUnfinishedSetupItem = TRouterOutputs["tracker"]["unfinishedSetups"]["setups"][number];

/**
 * One unfinished setup: its title (distinct in the list), what kind it is — a new tracker, or an edit of a live one
 * — its address or "No address yet", its last activity, and Resume / Discard. Discard asks first (focus moves onto the
 * question and back), and for an edit only closes it: the live tracker keeps its version.
 */
export function UnfinishedSetupRow({
  setup,
  asOf,
  onDone,
}: {
  setup: TUnfinishedSetupItem;
  asOf: Date;
  onDone: (announcement: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const askRef = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  const edit = setup.kind === "edit";
  const after = async () => {
    onDone(edit ? `Closed “${setup.title}”.` : `Discarded “${setup.title}”.`);
    await queryClient.invalidateQueries({ queryKey: trpc.tracker.pathKey() });
  };
  const discardSetup = useMutation(trpc.tracker.discardSetup.mutationOptions({ onSuccess: after }));
  const discardDraft = useMutation(trpc.tracker.discardDraft.mutationOptions({ onSuccess: after }));
  const pending = discardSetup.isPending || discardDraft.isPending;
  const error = discardSetup.error ?? discardDraft.error;
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
    else if (wasConfirming.current) askRef.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  const discard = () => {
    if (setup.sessionId) discardSetup.mutate({ sessionId: setup.sessionId });
    else if (setup.trackerId) discardDraft.mutate({ trackerId: setup.trackerId });
  };
  const titleId = useId();
  const live = setup.editingVersion ? setup.editingVersion - 1 : null;

  return (
    <li
      className="flex flex-col gap-3 p-4 sm:flex-row sm:items-start"
      data-testid="unfinished-setup"
      data-kind={setup.kind}
      data-session-id={setup.sessionId ?? undefined}
    >
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-center gap-2">
          <span id={titleId} className="font-medium break-words" data-testid="unfinished-setup-title">
            {setup.title}
          </span>
          <span
            className={
              edit
                ? "rounded-full bg-sky-100 px-2 py-0.5 text-xs font-medium text-sky-900 dark:bg-sky-950 dark:text-sky-200"
                : "rounded-full bg-stone-100 px-2 py-0.5 text-xs font-medium text-stone-700 dark:bg-stone-800 dark:text-stone-300"
            }
            data-testid="unfinished-setup-kind"
          >
            {edit ? `Edit of a live tracker (v${live} runs meanwhile)` : "New tracker"}
          </span>
        </p>
        <p
          className="truncate text-xs text-stone-600 dark:text-stone-400"
          title={setup.address ?? undefined}
          data-testid="unfinished-setup-address"
        >
          {setup.address ?? <span className="italic">No address yet</span>}
        </p>
        <p className="mt-1 text-xs text-stone-600 dark:text-stone-400" data-testid="unfinished-setup-activity">
          Last activity <RelativeTime value={setup.lastActivityAt} asOf={asOf} />
          {setup.discardAfter ? (
            <> · discarded automatically {formatDaysUntil(setup.discardAfter, asOf)} unless resumed</>
          ) : null}
        </p>
      </div>
      {confirming ? (
        <fieldset className="flex flex-wrap items-center gap-2" aria-describedby={titleId}>
          <legend className="sr-only">{edit ? "Close this edit?" : "Discard this setup?"}</legend>
          <span className="text-sm" aria-hidden="true">
            {edit
              ? `Close this edit? v${live} keeps running; the draft is kept for the next “Edit definition”.`
              : "Discard this setup and its conversation?"}
          </span>
          <button
            ref={confirmRef}
            type="button"
            className={`${buttonDanger} ${focusRing}`}
            disabled={pending}
            onClick={discard}
          >
            {pending ? "Working…" : edit ? "Close edit" : "Discard setup"}
          </button>
          <button
            type="button"
            className={`${buttonSecondary} ${focusRing}`}
            disabled={pending}
            onClick={() => setConfirming(false)}
          >
            Keep
          </button>
          {error ? (
            <p role="alert" className="w-full text-sm text-red-700 dark:text-red-400">
              {error.message}
            </p>
          ) : null}
        </fieldset>
      ) : (
        <div className="flex flex-wrap gap-2">
          {setup.sessionId ? (
            <Link href={resumeHref(setup)} className={`${buttonSecondary} ${focusRing}`}>
              {edit ? "Continue editing" : "Resume"}
              <span className="sr-only"> “{setup.title}”</span>
            </Link>
          ) : null}
          <button
            ref={askRef}
            type="button"
            className={`${buttonSecondary} ${focusRing}`}
            onClick={() => setConfirming(true)}
          >
            {edit ? "Close" : "Discard"}
            <span className="sr-only"> “{setup.title}”</span>
          </button>
        </div>
      )}
    </li>
  );
}

/** An edit reopens on the tracker's edit page (the same conversation); a new setup on /trackers/new. */
function resumeHref(setup: TUnfinishedSetupItem): string {
  if (setup.kind === "edit" && setup.trackerId) return `/trackers/${encodeURIComponent(setup.trackerId)}/edit`;
  return `/trackers/new?session=${encodeURIComponent(setup.sessionId ?? "")}`;
}
