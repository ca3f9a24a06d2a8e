"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary } from "@/components/ui/button-styles";

const OUTCOME_STYLES: Record<string, string> = {
  material: "text-red-800 dark:text-red-300",
  notable: "text-amber-800 dark:text-amber-300",
  failed: "text-red-700 dark:text-red-400",
};

/** "Refresh now": the same refreshTracker the scheduler runs, with progress and its one-line outcome. */
export function RefreshNow({ trackerId, disabled }: { trackerId: string; disabled?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = useMutation(
    trpc.tracker.refresh.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.tracker.pathKey() }),
    }),
  );
  const result = refresh.data;
  const tone = result ? (OUTCOME_STYLES[result.status === "failed" ? "failed" : (result.outcome ?? "")] ?? "") : "";

  return (
    <div className="flex flex-col gap-2">
      <button
        type="button"
        className={buttonPrimary}
        disabled={disabled || refresh.isPending}
        aria-describedby="refresh-feedback"
        onClick={() => refresh.mutate({ trackerId })}
      >
        {refresh.isPending ? "Refreshing…" : "Refresh now"}
      </button>
      <div id="refresh-feedback" aria-live="polite" className="min-h-5 text-sm">
        {refresh.isPending ? (
          <div role="status" data-testid="refresh-progress" className="space-y-1">
            <span>Fetching the source, comparing with the last record, judging what changed…</span>
            <div className="h-1 w-48 overflow-hidden rounded bg-stone-200 dark:bg-stone-800">
              <div className="h-1 w-1/3 animate-pulse rounded bg-stone-600" />
            </div>
          </div>
        ) : null}
        {result ? (
          <p data-testid="refresh-outcome" data-outcome={result.outcome ?? result.status} className={tone}>
            {result.summary}
            {result.modelCalls ? ` · ${result.modelCalls} model call(s)` : ""}
          </p>
        ) : null}
        {refresh.isError ? (
          <p role="alert" data-testid="refresh-outcome" data-outcome="error" className="text-red-700 dark:text-red-400">
            failed: {refresh.error.message}
          </p>
        ) : null}
      </div>
    </div>
  );
}
