export * from "./describe-outcome";
export { createFinalWriteBatch, type TFinalWriter } from "./final-write-batch";
export { DEFAULT_LEASE_MS, type TRefreshOptions, type TRefreshTrigger, ZRefreshTriggerSchema } from "./refresh-options";
export type { TRefreshOutcome, TRefreshResult } from "./refresh-result";
export * from "./refresh-tracker";
export * from "./run-steps";
