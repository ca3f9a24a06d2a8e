// Queries (read models for the UI, the public API and the feed) and their view types.
export * from "./queries/get-numeric-series";
export * from "./queries/get-tracker-overview";
export * from "./queries/list-definition-versions";
export * from "./queries/list-refresh-runs";
export * from "./queries/list-tracker-summaries";
export * from "./queries/list-trackers";
export * from "./views/definition-view";
export * from "./views/refresh-run-view";
export * from "./views/tracker-summary-view";
