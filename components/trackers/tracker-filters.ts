import {
  TRACKER_LIST_FILTERS,
  TRACKERS_CURSOR_MAX,
  TRACKERS_PAGE_SIZE,
  TRACKERS_SEARCH_MAX,
  type TTrackerListFilter,
} from "@/contracts/trackers";

/** The trackers page's "Show" choices, in the order the select lists them (applied on the server). */
export const FILTERS = [
  { value: "current", label: "Current" },
  { value: "active", label: "Active" },
  { value: "failing", label: "Failing" },
  { value: "needs_attention", label: "Needs attention" },
  { value: "paused", label: "Paused" },
  { value: "archived", label: "Archived" },
  { value: "all", label: "All" },
] as const satisfies readonly { value: TTrackerListFilter; label: string }[];
export type TFilter = TTrackerListFilter;

/** What the page's address asks for (`?show=failing&q=acme&after=…`), read the same on the server and in the browser. */
export type TListParams = { show: TFilter; q: string; after: string | null };

/** Anything the address says that the list does not offer is the default, never an error page. */
export function readListParams(get: (name: string) => string | null | undefined): TListParams {
  const show = get("show");
  const q = (get("q") ?? "").trim().slice(0, TRACKERS_SEARCH_MAX);
  const after = get("after");
  return {
    show: (TRACKER_LIST_FILTERS as readonly string[]).includes(show ?? "") ? (show as TFilter) : "current",
    q,
    after: after && after.length <= TRACKERS_CURSOR_MAX ? after : null,
  };
}

/** The listView input for those params: the page prefetches exactly this, so the client finds it in its cache. */
export function listInput(params: Pick<TListParams, "show" | "q">) {
  return { show: params.show, limit: TRACKERS_PAGE_SIZE, ...(params.q ? { q: params.q } : {}) };
}

/** The page's address for a view; the defaults are left out so /trackers stays /trackers. */
export function listHref(params: { show: TFilter; q: string; after?: string | null }): string {
  const search = new URLSearchParams();
  if (params.show !== "current") search.set("show", params.show);
  if (params.q) search.set("q", params.q);
  if (params.after) search.set("after", params.after);
  const query = search.toString();
  return query ? `/trackers?${query}` : "/trackers";
}

/** "10,000": one fixed locale, so the server's HTML and the browser's hydration say the same. */
const COUNT_FORMAT = new Intl.NumberFormat("en-US");
export function formatCount(n: number): string {
  return COUNT_FORMAT.format(n);
}
