/**
 * The tracker store: the ONE module that writes the Tracker and TrackerDefinition tables (docs/design.md §2
 * "one module owns the writes to each table"). It sits in intelligence, below the refresh hot loop and
 * the setup chat, so both can use it; the application layer (server/trackers) composes its writes into
 * commands and adds the policy (which transitions and schedules are allowed). The scheduler's claim,
 * the refresh lease and the run bookkeeping live here too, and every nextRunAt after a run or a
 * schedule change comes from computeNextRunAt (next-run.ts).
 */

export * from "./claim-due-trackers";
export * from "./create-tracker";
export * from "./delete-draft-tracker";
export * from "./delete-tracker";
export * from "./field-health-state";
export * from "./get-locked-definition";
export * from "./get-tracker";
export * from "./lease-and-load";
export * from "./lock-definition";
export * from "./next-run";
export * from "./page-validators";
export * from "./record-refresh-outcome";
export * from "./remember-render-decision";
export * from "./save-draft-definition";
export * from "./schedule-backlog";
export * from "./tracker-status-rules";
export * from "./update-capability-input";
export * from "./update-tracker-schedule";
export * from "./update-tracker-status";
