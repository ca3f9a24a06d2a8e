"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary } from "@/components/ui/button-styles";

const input =
  "w-full rounded-md border border-stone-300 bg-white px-3 py-2 text-sm dark:border-stone-700 dark:bg-stone-950";

function toNumber(v: string): number | null {
  const n = Number(v);
  return v.trim() === "" || !Number.isFinite(n) ? null : n;
}

/** Location (for weather), calendar URL and memory notes the feed uses. */
export function FeedSettings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.settings.feed.queryOptions());
  const save = useMutation(
    trpc.settings.updateFeed.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.settings.feed.queryKey(), data),
    }),
  );
  const id = useId();
  const [draft, setDraft] = useState<Record<string, string> | null>(null);

  if (settings.isPending) return <p className="text-sm text-stone-500">Loading feed settings…</p>;
  if (settings.isError) return <p role="alert">Feed settings could not be loaded: {settings.error.message}</p>;
  const s = settings.data;
  const values = draft ?? {
    locationName: s.locationName ?? "",
    latitude: s.latitude?.toString() ?? "",
    longitude: s.longitude?.toString() ?? "",
    timezone: s.timezone ?? "",
    calendarUrl: s.calendarUrl ?? "",
    memory: s.memory,
  };
  const set = (k: string) => (e: { target: { value: string } }) => setDraft({ ...values, [k]: e.target.value });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(
      {
        locationName: values.locationName || null,
        latitude: toNumber(values.latitude ?? ""),
        longitude: toNumber(values.longitude ?? ""),
        timezone: values.timezone || null,
        calendarUrl: values.calendarUrl || null,
        memory: values.memory ?? "",
      },
      { onSuccess: () => setDraft(null) },
    );
  };

  const field = (key: string, label: string, props: Record<string, string> = {}) => (
    <div className="flex flex-col gap-1">
      <label htmlFor={`${id}-${key}`} className="text-sm font-medium">
        {label}
      </label>
      <input id={`${id}-${key}`} className={input} value={values[key] ?? ""} onChange={set(key)} {...props} />
    </div>
  );

  return (
    <form onSubmit={onSubmit} className="mt-4 grid gap-4 sm:grid-cols-2" aria-label="Feed settings">
      {field("locationName", "Place name", { placeholder: "London" })}
      {field("timezone", "Time zone", { placeholder: "Europe/London" })}
      {field("latitude", "Latitude", { inputMode: "decimal", placeholder: "51.5" })}
      {field("longitude", "Longitude", { inputMode: "decimal", placeholder: "-0.12" })}
      <div className="sm:col-span-2">
        {field("calendarUrl", "Calendar (ICS URL)", { type: "url", placeholder: "https://…/calendar.ics" })}
      </div>
      <div className="flex flex-col gap-1 sm:col-span-2">
        <label htmlFor={`${id}-memory`} className="text-sm font-medium">
          Notes for the assistant
        </label>
        <textarea
          id={`${id}-memory`}
          className={`${input} min-h-24`}
          value={values.memory ?? ""}
          onChange={set("memory")}
          placeholder="I cycle to work. Our Pro plan costs 49 USD."
        />
      </div>
      <div className="flex items-center gap-3 sm:col-span-2">
        <button type="submit" className={buttonPrimary} disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save feed settings"}
        </button>
        {save.isSuccess && !draft ? (
          <span role="status" className="text-sm text-green-700 dark:text-green-300">
            Saved.
          </span>
        ) : null}
        {save.isError ? (
          <span role="alert" className="text-sm text-red-700 dark:text-red-300">
            {save.error.message}
          </span>
        ) : null}
      </div>
    </form>
  );
}
