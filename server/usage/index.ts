export * from "./model-budget";
export * from "./model-usage";
export * from "./month";
export * from "./rate-limit";
export * from "./run-day-counts";
export * from "./usage-this-month";
