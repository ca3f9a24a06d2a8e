/**
 * The tracker application layer (docs/design.md §2): every command and query the UI, the public API and the
 * feed use on trackers, with their view types. Routers and REST handlers call one function from here.
 *
 * Where the writes live — a deliberate split:
 * - Row writes to Tracker and TrackerDefinition live in ONE module below, server/intelligence/tracker-store.
 *   The refresh hot loop and the setup chat are in intelligence and may not import this layer, yet they
 *   write those rows (lease and run bookkeeping; create → save draft → lock). So the definition-versioning
 *   writes (createTracker, saveDraftDefinition = "edit → vN+1", lockDefinition) stay in the store and are
 *   re-exported here unchanged; the other commands (status, schedule, bulk status, create-active) put their
 *   policy here and call the store's conditional updates.
 * - Queries read through Prisma directly (reads have no single owner) and return view types, never rows.
 */

// Commands.
export {
  createTracker,
  DECISION_MAX_CHARS,
  DECISION_MIN_CHARS,
  getTracker,
  lockDefinition,
  SCHEDULE_MAX_MINUTES,
  SCHEDULE_MIN_MINUTES,
  saveDraftDefinition,
  type TCreateTrackerInput,
} from "../intelligence/tracker-store";
// The one definition of "failing" and "due" (see tracker-status-rules.ts), for the feed and the UI.
export {
  dueWhere,
  FAILING_AFTER,
  FAILING_WHERE,
  isDue,
  isFailing,
  NEEDS_ATTENTION_WHERE,
  needsAttention,
} from "../intelligence/tracker-store/tracker-status-rules";
export * from "./commands/create-active-tracker";
export * from "./commands/discard-draft";
export * from "./commands/discard-stale-drafts";
export * from "./commands/discard-unfinished-setup";
export * from "./commands/rejudge-history";
export * from "./commands/replay-tracker";
export * from "./commands/replay-within-limit";
export * from "./commands/set-tracker-schedule";
export * from "./commands/set-tracker-status";
export * from "./commands/set-trackers-status";

// Queries and their view types.
export * from "./queries/get-numeric-series";
export * from "./queries/get-rejudged-history";
export * from "./queries/get-runs-log";
export * from "./queries/get-tracker-overview";
export * from "./queries/get-tracker-timeline";
export * from "./queries/get-trackers-list";
export * from "./queries/list-definition-versions";
export * from "./queries/list-pruned-run-days";
export * from "./queries/list-refresh-runs";
export * from "./queries/list-set-members";
export * from "./queries/list-tracker-summaries";
export * from "./queries/list-unfinished-setups";
// Live: one tracker's events for its open page.
export * from "./tracker-events";
export * from "./views/definition-view";
export * from "./views/refresh-run-view";
export * from "./views/tracker-summary-view";
export * from "./views/unfinished-setup-view";
