export * from "./handle-cron-refresh";
export * from "./refresh-tracker-now";
export * from "./run-due-refreshes";
export * from "./run-maintenance";
export * from "./run-worker";
export * from "./stream-tracker-refresh";
