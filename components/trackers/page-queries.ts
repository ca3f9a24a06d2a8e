/**
 * The query inputs the tracker page's client components use that its server component prefetches with the same
 * keys (app/trackers/[id]/page.tsx). Kept in a plain module: a server component importing a value from a
 * "use client" file gets a client reference, not the value.
 */

/** The timeline's page size (its first page is prefetched). */
export const TIMELINE_PAGE_SIZE = 20;
/** The runs shown at first; one more is read to know whether "Show all" has anything to add. */
export const RUNS_SHOWN = 5;
export const RUNS_PREVIEW_LIMIT = RUNS_SHOWN + 1;
/** "Show all": as many as the runs query gives (its maximum). */
export const RUNS_ALL_LIMIT = 100;
/** Pruned days listed under the runs. */
export const PRUNED_DAYS_LIMIT = 14;
