"use client";

import { FILTERS, type TFilter } from "./tracker-filters";

/** Above the list: which trackers to show, and "Select all" of those shown (mixed when only some are). */
export function TrackersToolbar({
  filter,
  onFilter,
  shownCount,
  chosenCount,
  allChosen,
  onSelectAll,
}: {
  filter: TFilter;
  onFilter: (filter: TFilter) => void;
  shownCount: number;
  chosenCount: number;
  allChosen: boolean;
  onSelectAll: (on: boolean) => void;
}) {
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
      <label className="text-sm">
        <span className="mr-2 font-medium">Show</span>
        <select
          value={filter}
          onChange={(e) => onFilter(e.target.value as TFilter)}
          className="rounded-md border border-stone-300 bg-white px-2 py-1 dark:border-stone-700 dark:bg-stone-900"
        >
          {FILTERS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </select>
      </label>
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
