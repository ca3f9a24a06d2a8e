"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { fieldErrorsOf } from "@/components/ui/field-errors";
import { inputClass } from "@/components/ui/form-field";
import { clockToMinute, minuteToClock, ROUTINGS, type TNotificationDefaultsInput } from "@/contracts/notifications";

const HOURS = Array.from({ length: 24 }, (_, h) => h);

export const ROUTING_LABEL = { immediate: "Immediately", digest: "Daily digest", off: "Off" } as const;

/** The options of a routing select (Settings' defaults and a tracker's own). */
export function RoutingOptions() {
  return ROUTINGS.map((r) => (
    <option key={r} value={r}>
      {ROUTING_LABEL[r]}
    </option>
  ));
}

/** Settings → Notifications → defaults: routing for trackers without their own, quiet hours, digest hour, Atom feed. */
export function NotificationDefaults() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const id = useId();
  const defaults = useQuery(trpc.notification.defaults.queryOptions());
  // What the person changed; until then the stored defaults, so the form is in the server's HTML (it is prefetched).
  const [draft, setForm] = useState<TNotificationDefaultsInput | null>(null);
  const [quietDraft, setQuiet] = useState<{ start: string; end: string } | null>(null);
  const save = useMutation(
    trpc.notification.updateDefaults.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.notification.defaults.queryFilter()),
    }),
  );
  const errors = fieldErrorsOf(save.error);

  if (defaults.isPending) return <p className="mt-3 text-sm">Loading…</p>;
  if (defaults.isError) {
    return (
      <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-300">
        Could not load the defaults: {defaults.error.message}
      </p>
    );
  }
  const form = draft ?? defaults.data;
  const quiet = quietDraft ?? {
    start: minuteToClock(defaults.data.quietStartMinute),
    end: minuteToClock(defaults.data.quietEndMinute),
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ ...form, quietStartMinute: clockToMinute(quiet.start), quietEndMinute: clockToMinute(quiet.end) });
  };
  const select = (key: "material" | "notable", label: string) => (
    <div className="flex flex-col gap-1">
      <label htmlFor={`${id}-${key}`} className="text-sm font-medium">
        {label}
      </label>
      <select
        id={`${id}-${key}`}
        className={inputClass}
        value={form[key]}
        onChange={(e) => setForm({ ...form, [key]: e.target.value as (typeof ROUTINGS)[number] })}
      >
        <RoutingOptions />
      </select>
    </div>
  );

  return (
    <form onSubmit={submit} className="mt-3 space-y-3" aria-label="Notification defaults">
      <p className="text-sm text-stone-600 dark:text-stone-400">
        For every tracker unless its page says otherwise. Times are in your time zone (set with your location above).
      </p>
      <div className="grid gap-3 sm:grid-cols-3">
        {select("material", "Material changes")}
        {select("notable", "Notable changes")}
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-digest`} className="text-sm font-medium">
            Daily digest at
          </label>
          <select
            id={`${id}-digest`}
            className={inputClass}
            value={form.digestHour}
            onChange={(e) => setForm({ ...form, digestHour: Number(e.target.value) })}
          >
            {HOURS.map((h) => (
              <option key={h} value={h}>
                {String(h).padStart(2, "0")}:00
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-qs`} className="text-sm font-medium">
            Quiet hours from
          </label>
          <input
            id={`${id}-qs`}
            type="time"
            className={inputClass}
            value={quiet.start}
            onChange={(e) => setQuiet({ ...quiet, start: e.target.value })}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${id}-qe`} className="text-sm font-medium">
            Quiet hours until
          </label>
          <input
            id={`${id}-qe`}
            type="time"
            className={inputClass}
            value={quiet.end}
            aria-invalid={errors.quietEndMinute ? true : undefined}
            aria-describedby={errors.quietEndMinute ? `${id}-qe-error` : undefined}
            onChange={(e) => setQuiet({ ...quiet, end: e.target.value })}
          />
          {errors.quietEndMinute ? (
            <p id={`${id}-qe-error`} className="text-sm text-red-700 dark:text-red-300">
              {errors.quietEndMinute}
            </p>
          ) : null}
        </div>
        <label className="flex items-center gap-2 self-end text-sm">
          <input
            type="checkbox"
            checked={form.failing}
            onChange={(e) => setForm({ ...form, failing: e.target.checked })}
          />
          Tell me when a tracker starts failing, and when it recovers
        </label>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <button type="submit" className={buttonPrimary} disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save defaults"}
        </button>
        {save.isSuccess ? (
          <span role="status" className="text-sm">
            Saved.
          </span>
        ) : null}
        {save.isError && !errors.quietEndMinute ? (
          <span role="alert" className="text-sm text-red-700 dark:text-red-300">
            {save.error.message}
          </span>
        ) : null}
      </div>
    </form>
  );
}

/** The Atom feed of material changes at a secret URL (of the person, or of one tracker): make a new one, or revoke. */
export function AtomFeedUrl({ trackerId }: { trackerId?: string }) {
  const trpc = useTRPC();
  const rotate = useMutation(trpc.notification.rotateFeed.mutationOptions());
  const revoke = useMutation(trpc.notification.revokeFeed.mutationOptions({ onSuccess: () => rotate.reset() }));
  const input = trackerId ? { trackerId } : {};
  return (
    <div className="mt-3 space-y-2 text-sm">
      <p className="text-stone-600 dark:text-stone-400">
        A private Atom feed of {trackerId ? "this tracker's" : "your"} material changes for a feed reader. Making a new
        URL turns the old one off.
      </p>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={buttonSecondary}
          onClick={() => rotate.mutate(input)}
          disabled={rotate.isPending}
        >
          New feed URL
        </button>
        <button
          type="button"
          className={buttonSecondary}
          onClick={() => revoke.mutate(input)}
          disabled={revoke.isPending}
        >
          Turn the feed off
        </button>
      </div>
      {rotate.data ? (
        <code data-testid="atom-feed-url" className="block break-all select-all">
          {rotate.data.url}
        </code>
      ) : null}
      {revoke.isSuccess ? <p role="status">The feed URL no longer works.</p> : null}
      {rotate.isError ? (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {rotate.error.message}
        </p>
      ) : null}
    </div>
  );
}
