import type { TTrackerListItem } from "@/contracts/trackers";

/** The trackers page's "Show" choices, in the order the select lists them. */
export const FILTERS = [
  { value: "current", label: "Current" },
  { value: "active", label: "Active" },
  { value: "failing", label: "Failing" },
  { value: "needs_attention", label: "Needs attention" },
  { value: "paused", label: "Paused" },
  { value: "archived", label: "Archived" },
  { value: "all", label: "All" },
] as const;
export type TFilter = (typeof FILTERS)[number]["value"];

export function matches(t: TTrackerListItem, filter: TFilter): boolean {
  switch (filter) {
    case "current":
      return t.status !== "archived";
    case "failing":
      return t.failing;
    case "needs_attention":
      return t.needsAttention;
    case "all":
      return true;
    default:
      return t.status === filter;
  }
}
