"use client";

import { useId } from "react";
import { buttonSecondary } from "@/components/ui/button-styles";
import { FILTERS, formatCount, type TFilter, type TListParams } from "./tracker-filters";

/**
 * Above the list: which trackers to show and a search, as a GET form on /trackers (`?show=…&q=…`), so a view can be
 * linked and works without JavaScript; with it, the choice applies at once and Enter searches. Then "Select all" of
 * those shown (mixed when only some are).
 */
export function TrackersToolbar({
  params,
  counts,
  onChoose,
  shownCount,
  chosenCount,
  allChosen,
  onSelectAll,
}: {
  params: TListParams;
  counts: Record<TFilter, number> | undefined;
  onChoose: (next: { show: TFilter; q: string }) => void;
  shownCount: number;
  chosenCount: number;
  allChosen: boolean;
  onSelectAll: (on: boolean) => void;
}) {
  const id = useId();
  const read = (form: HTMLFormElement) => {
    const data = new FormData(form);
    return { show: (data.get("show") as TFilter | null) ?? params.show, q: String(data.get("q") ?? "") };
  };
  return (
    <div className="flex flex-wrap items-end gap-x-4 gap-y-2">
      <search aria-label="Search trackers">
        <form
          action="/trackers"
          method="get"
          // Remounted per address, so Back and a new search show what the list shows.
          key={`${params.show}\u0000${params.q}`}
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            onChoose(read(e.currentTarget));
          }}
        >
          <label className="text-sm" htmlFor={`${id}-show`}>
            <span className="mr-2 font-medium">Show</span>
            <select
              id={`${id}-show`}
              name="show"
              defaultValue={params.show}
              onChange={(e) => e.currentTarget.form && onChoose(read(e.currentTarget.form))}
              className="rounded-md border border-stone-300 bg-white px-2 py-1 dark:border-stone-700 dark:bg-stone-900"
            >
              {FILTERS.map((f) => (
                <option key={f.value} value={f.value}>
                  {counts ? `${f.label} (${formatCount(counts[f.value])})` : f.label}
                </option>
              ))}
            </select>
          </label>
          <label className="text-sm" htmlFor={`${id}-q`}>
            <span className="mr-2 font-medium">Search</span>
            <input
              id={`${id}-q`}
              type="search"
              name="q"
              defaultValue={params.q}
              maxLength={200}
              placeholder="Decision or address"
              className="w-56 rounded-md border border-stone-300 bg-white px-2 py-1 dark:border-stone-700 dark:bg-stone-900"
            />
          </label>
          <button type="submit" className={`${buttonSecondary} py-1`}>
            Search
          </button>
        </form>
      </search>
      {shownCount > 0 ? (
        <label className="flex min-h-11 items-center gap-2 text-sm">
          <input
            type="checkbox"
            className="h-5 w-5"
            checked={allChosen}
            ref={(el) => {
              if (el) el.indeterminate = chosenCount > 0 && !allChosen;
            }}
            onChange={(e) => onSelectAll(e.target.checked)}
          />
          Select all
        </label>
      ) : null}
    </div>
  );
}
