export * from "./describe-outcome";
export { createFinalWriteBatch, type TFinalWriter } from "./final-write-batch";
export { DEFAULT_LEASE_MS, type TRefreshOptions, type TRefreshTrigger, ZRefreshTriggerSchema } from "./refresh-options";
export type { TRefreshOutcome, TRefreshResult } from "./refresh-result";
export * from "./refresh-tracker";
export { rejoinRun } from "./rejoin-run";
export * from "./run-steps";
