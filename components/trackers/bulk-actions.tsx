"use client";

import type { RefObject } from "react";
import { buttonDanger, buttonSecondary } from "@/components/ui/button-styles";

type TBulkStatus = "active" | "paused" | "archived";

/** What to do with the selected trackers: pause, resume, or archive after a confirmation (archiving cannot be undone). */
export function BulkActions({
  count,
  pending,
  confirmArchive,
  confirmRef,
  onAct,
  onConfirmArchive,
  onClear,
}: {
  count: number;
  pending: boolean;
  confirmArchive: boolean;
  /** The confirmation's Archive button, focused when it appears. */
  confirmRef: RefObject<HTMLButtonElement | null>;
  onAct: (status: TBulkStatus) => void;
  onConfirmArchive: (asking: boolean) => void;
  onClear: () => void;
}) {
  return (
    <fieldset
      className="flex flex-wrap items-center gap-2 rounded-lg border border-stone-300 bg-stone-50 p-3 dark:border-stone-700 dark:bg-stone-900"
      data-testid="bulk-actions"
    >
      <legend className="sr-only">With the selected trackers</legend>
      <span className="mr-2 text-sm font-medium">{count} selected</span>
      {confirmArchive ? (
        <>
          <span className="text-sm">
            Archive {count} tracker{count === 1 ? "" : "s"}? Archived trackers stop refreshing and cannot be resumed.
          </span>
          <button
            ref={confirmRef}
            type="button"
            className={buttonDanger}
            disabled={pending}
            onClick={() => onAct("archived")}
          >
            Archive {count}
          </button>
          <button type="button" className={buttonSecondary} onClick={() => onConfirmArchive(false)}>
            Cancel
          </button>
        </>
      ) : (
        <>
          <button type="button" className={buttonSecondary} disabled={pending} onClick={() => onAct("paused")}>
            Pause
          </button>
          <button type="button" className={buttonSecondary} disabled={pending} onClick={() => onAct("active")}>
            Resume
          </button>
          <button type="button" className={buttonSecondary} disabled={pending} onClick={() => onConfirmArchive(true)}>
            Archive…
          </button>
          <button type="button" className={buttonSecondary} onClick={onClear}>
            Clear selection
          </button>
        </>
      )}
    </fieldset>
  );
}

/** After a bulk change: the trackers it did not change and why, or the error. */
export function BulkNotices({
  refused,
  error,
}: {
  refused: { message: string }[] | undefined;
  error: { message: string } | null;
}) {
  return (
    <>
      {refused?.length ? (
        <p role="alert" className="text-sm text-amber-800 dark:text-amber-300">
          {refused.length} tracker(s) not changed: {refused.map((r) => r.message).join(" ")}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error.message}
        </p>
      ) : null}
    </>
  );
}
