"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary } from "@/components/ui/button-styles";
import { SCHEDULE_CHOICES } from "./format";

type TProps = { trackerId: string; status: "draft" | "active" | "paused" | "archived"; scheduleMinutes: number };

/** Pause / resume / archive, the schedule, and the way to edit the definition. */
export function TrackerControls({ trackerId, status, scheduleMinutes }: TProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.tracker.pathKey() });
  const setStatus = useMutation(trpc.tracker.setStatus.mutationOptions({ onSuccess: invalidate }));
  const setSchedule = useMutation(trpc.tracker.setSchedule.mutationOptions({ onSuccess: invalidate }));
  const archived = status === "archived";
  const choices = SCHEDULE_CHOICES.some((c) => c.minutes === scheduleMinutes)
    ? SCHEDULE_CHOICES
    : [...SCHEDULE_CHOICES, { minutes: scheduleMinutes, label: `Every ${scheduleMinutes} minutes` }];

  return (
    <div className="flex flex-wrap items-center gap-2">
      {status === "active" ? (
        <button
          type="button"
          className={buttonSecondary}
          disabled={setStatus.isPending}
          onClick={() => setStatus.mutate({ trackerId, status: "paused" })}
        >
          Pause
        </button>
      ) : null}
      {status === "paused" ? (
        <button
          type="button"
          className={buttonSecondary}
          disabled={setStatus.isPending}
          onClick={() => setStatus.mutate({ trackerId, status: "active" })}
        >
          Resume
        </button>
      ) : null}
      {!archived ? (
        <button
          type="button"
          className={buttonSecondary}
          disabled={setStatus.isPending}
          onClick={() => {
            if (window.confirm("Archive this tracker? It stops refreshing and cannot be reactivated.")) {
              setStatus.mutate({ trackerId, status: "archived" });
            }
          }}
        >
          Archive
        </button>
      ) : null}
      <label className="text-sm">
        <span className="mr-2 font-medium">Schedule</span>
        <select
          value={scheduleMinutes}
          disabled={archived || setSchedule.isPending}
          onChange={(e) => setSchedule.mutate({ trackerId, scheduleMinutes: Number(e.target.value) })}
          className="rounded-md border border-stone-300 bg-white px-2 py-1 dark:border-stone-700 dark:bg-stone-900"
        >
          {choices.map((c) => (
            <option key={c.minutes} value={c.minutes}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      {!archived ? (
        <Link href={`/trackers/${trackerId}/edit`} className={buttonSecondary}>
          Edit definition
        </Link>
      ) : null}
      {setStatus.isError || setSchedule.isError ? (
        <p role="alert" className="w-full text-sm text-red-700 dark:text-red-400">
          {(setStatus.error ?? setSchedule.error)?.message}
        </p>
      ) : null}
    </div>
  );
}
