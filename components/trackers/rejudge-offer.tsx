"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary, focusRing } from "@/components/ui/button-styles";

/**
 * "Lock with history" (docs/replay.md): just after vN+1 was locked from the edit page, an explicit, optional offer to
 * re-judge the stored history under it. The originals stay as the history of vN (the timeline is append-only);
 * the re-judged entries are added beside them. Code rules and stored verdicts only: no model call.
 */
export function RejudgeOffer({ trackerId, version }: { trackerId: string; version: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [dismissed, setDismissed] = useState(false);
  const rejudge = useMutation(
    trpc.tracker.rejudgeHistory.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.tracker.pathFilter()),
    }),
  );
  if (dismissed) return null;
  const close = () => {
    setDismissed(true);
    router.replace(`/trackers/${encodeURIComponent(trackerId)}`, { scroll: false });
  };
  return (
    <section
      aria-labelledby="rejudge-title"
      data-testid="rejudge-offer"
      className="rounded-xl border border-sky-200 bg-sky-50 p-4 text-sm dark:border-sky-900 dark:bg-sky-950"
    >
      <h2 id="rejudge-title" className="font-semibold">
        Version {version} is locked
      </h2>
      {rejudge.isSuccess ? (
        <>
          <p role="status" className="mt-1" data-testid="rejudge-summary">
            {rejudge.data.summary}
          </p>
          <button type="button" onClick={close} className={`${buttonSecondary} ${focusRing} mt-3`}>
            Done
          </button>
        </>
      ) : (
        <>
          <p className="mt-1 text-stone-700 dark:text-stone-300">
            Optionally, judge the stored history again under v{version}: its entries are added as re-judged, and the
            original entries stay as the history of v{version - 1}. No model call is made.
          </p>
          {rejudge.isError ? (
            <p role="alert" className="mt-2 text-red-700 dark:text-red-400" data-testid="rejudge-error">
              {rejudge.error.message}
            </p>
          ) : null}
          <div className="mt-3 flex flex-wrap gap-2">
            <button
              type="button"
              onClick={() => rejudge.mutate({ trackerId })}
              disabled={rejudge.isPending}
              className={`${buttonPrimary} ${focusRing}`}
              data-testid="rejudge-button"
            >
              {rejudge.isPending ? "Re-judging…" : `Re-judge stored history under v${version}`}
            </button>
            <button
              type="button"
              onClick={close}
              disabled={rejudge.isPending}
              className={`${buttonSecondary} ${focusRing}`}
            >
              Not now
            </button>
          </div>
        </>
      )}
    </section>
  );
}
