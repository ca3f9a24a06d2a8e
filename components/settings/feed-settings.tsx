"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary } from "@/components/ui/button-styles";
import { fieldErrorsOf } from "@/components/ui/field-errors";
import { FormField, inputClass } from "@/components/ui/form-field";
import type { TPlace } from "@/contracts/settings";
import { PlaceSearch } from "./place-search";

type TKey = "locationName" | "latitude" | "longitude" | "timezone" | "calendarUrl" | "memory";
type TValues = Record<TKey, string>;

/** Fields inside "Enter coordinates manually": an error there opens it. */
const MANUAL_KEYS: readonly TKey[] = ["locationName", "latitude", "longitude"];

function toNumber(v: string): number | null {
  return v.trim() === "" ? null : Number(v.trim());
}

const coordinate = (v: string) => Number(v).toFixed(2);

/**
 * Location (for the weather), time zone, calendar URL and notes the feed uses. The location is found by name
 * (PlaceSearch) or typed as coordinates under "Enter coordinates manually"; a refused value is shown next to its
 * field (the server's fieldErrors), and nothing else the person typed is lost.
 */
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
  const [draft, setDraft] = useState<TValues | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [manualOpen, setManualOpen] = useState(false);

  if (settings.isPending) return <p className="text-sm text-stone-600 dark:text-stone-400">Loading feed settings…</p>;
  if (settings.isError) return <p role="alert">Feed settings could not be loaded: {settings.error.message}</p>;
  const s = settings.data;
  const values: TValues = draft ?? {
    locationName: s.locationName ?? "",
    latitude: s.latitude?.toString() ?? "",
    longitude: s.longitude?.toString() ?? "",
    timezone: s.timezone ?? "",
    calendarUrl: s.calendarUrl ?? "",
    memory: s.memory,
  };
  const update = (patch: Partial<TValues>) => {
    setDraft({ ...values, ...patch });
    // An edited field's old error no longer applies.
    setErrors((prev) => {
      const next = { ...prev };
      for (const key of Object.keys(patch)) delete next[key];
      return next;
    });
  };
  const showErrors = (found: Record<string, string>) => {
    setErrors(found);
    if (MANUAL_KEYS.some((k) => found[k])) setManualOpen(true);
  };

  const onPick = (place: TPlace) =>
    update({
      locationName: place.label,
      latitude: String(place.latitude),
      longitude: String(place.longitude),
      ...(place.timezone ? { timezone: place.timezone } : {}),
    });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    save.reset();
    // Text that is not a number cannot even be sent as one: said here, like the server's range errors.
    const local: Record<string, string> = {};
    if (values.latitude.trim() !== "" && !Number.isFinite(Number(values.latitude.trim())))
      local.latitude = "Latitude must be a number.";
    if (values.longitude.trim() !== "" && !Number.isFinite(Number(values.longitude.trim())))
      local.longitude = "Longitude must be a number.";
    if (Object.keys(local).length > 0) return showErrors(local);
    save.mutate(
      {
        locationName: values.locationName.trim() || null,
        latitude: toNumber(values.latitude),
        longitude: toNumber(values.longitude),
        timezone: values.timezone.trim() || null,
        calendarUrl: values.calendarUrl.trim() || null,
        memory: values.memory,
      },
      {
        onSuccess: () => {
          setDraft(null);
          setErrors({});
        },
        onError: (error) => showErrors(fieldErrorsOf(error)),
      },
    );
  };

  const field = (key: TKey, label: string, props: Record<string, string> = {}) => (
    <FormField
      id={`${id}-${key}`}
      label={label}
      value={values[key]}
      onChange={(e) => update({ [key]: e.target.value })}
      error={errors[key]}
      {...props}
    />
  );

  const hasPlace = values.latitude.trim() !== "" && values.longitude.trim() !== "";
  const placeLabel =
    values.locationName.trim() || (hasPlace ? `${coordinate(values.latitude)}, ${coordinate(values.longitude)}` : "");
  const errorCount = Object.keys(errors).length;

  return (
    <form onSubmit={onSubmit} noValidate className="mt-4 grid gap-4 sm:grid-cols-2" aria-label="Feed settings">
      <fieldset id="location" className="min-w-0 sm:col-span-2">
        <legend className="text-sm font-semibold">Location</legend>
        <div className="mt-1 flex flex-col gap-3">
          <p id={`${id}-location-hint`} className="text-xs text-stone-600 dark:text-stone-400">
            For the weather card. Search by name and pick the place; its coordinates and time zone are filled in.
          </p>
          <div className="flex flex-col gap-1">
            <label htmlFor={`${id}-place`} className="text-sm font-medium">
              Find a place
            </label>
            <PlaceSearch inputId={`${id}-place`} onPick={onPick} describedBy={`${id}-location-hint`} />
          </div>
          <div
            className="flex min-h-9 flex-wrap items-center gap-x-3 gap-y-1 text-sm"
            data-testid="current-place"
            data-place={hasPlace ? placeLabel : ""}
          >
            {hasPlace ? (
              <>
                <span>
                  Place: <span className="font-medium">{placeLabel}</span>{" "}
                  <span className="text-stone-600 dark:text-stone-400">
                    ({coordinate(values.latitude)}, {coordinate(values.longitude)})
                  </span>
                </span>
                <button
                  type="button"
                  className={`${buttonSecondary} px-2 py-1 text-xs`}
                  onClick={() => update({ locationName: "", latitude: "", longitude: "" })}
                >
                  Clear place
                </button>
              </>
            ) : (
              <span className="text-stone-600 dark:text-stone-400">No place yet: the feed shows no weather.</span>
            )}
          </div>
          <details
            open={manualOpen}
            onToggle={(e) => setManualOpen(e.currentTarget.open)}
            className="rounded-md border border-stone-200 px-3 py-2 dark:border-stone-800"
          >
            <summary className="cursor-pointer text-sm font-medium">Enter coordinates manually</summary>
            <div className="mt-3 grid gap-4 pb-1 sm:grid-cols-3">
              {field("locationName", "Place name", { placeholder: "London" })}
              {field("latitude", "Latitude", { inputMode: "decimal", placeholder: "51.5" })}
              {field("longitude", "Longitude", { inputMode: "decimal", placeholder: "-0.12" })}
            </div>
          </details>
        </div>
      </fieldset>
      {field("timezone", "Time zone", {
        placeholder: "Europe/London",
        hint: "Filled in when you pick a place. Every time in your feed is shown in it — the agenda's days, the weather's hours; empty: your browser's.",
      })}
      <div className="sm:col-span-2">
        {field("calendarUrl", "Calendar (ICS URL)", { type: "url", placeholder: "https://…/calendar.ics" })}
      </div>
      <div className="flex flex-col gap-1 sm:col-span-2">
        <label htmlFor={`${id}-memory`} className="text-sm font-medium">
          Notes for the assistant
        </label>
        <textarea
          id={`${id}-memory`}
          className={`${inputClass} min-h-24`}
          value={values.memory}
          onChange={(e) => update({ memory: e.target.value })}
          aria-invalid={errors.memory ? true : undefined}
          aria-describedby={errors.memory ? `${id}-memory-error` : undefined}
          placeholder="I cycle to work. Our Pro plan costs 49 USD."
        />
        {errors.memory ? (
          <p id={`${id}-memory-error`} className="text-sm text-red-700 dark:text-red-300" data-field-error>
            {errors.memory}
          </p>
        ) : null}
      </div>
      <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
        <button type="submit" className={buttonPrimary} disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save feed settings"}
        </button>
        {save.isSuccess && !draft ? (
          <span role="status" className="text-sm text-green-700 dark:text-green-300">
            Saved.
          </span>
        ) : null}
        {errorCount > 0 || save.isError ? (
          <span role="alert" className="text-sm text-red-700 dark:text-red-300">
            {errors[""]
              ? `Not saved: ${errors[""]}`
              : errorCount > 0
                ? `Not saved: ${errorCount === 1 ? "one field needs" : `${errorCount} fields need`} fixing (marked above).`
                : save.error?.message}
          </span>
        ) : null}
      </div>
    </form>
  );
}
