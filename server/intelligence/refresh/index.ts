export * from "./describe-outcome";
export { createFinalWriteBatch, type TFinalWriter } from "./final-write-batch";
export * from "./refresh-tracker";
export * from "./run-steps";
