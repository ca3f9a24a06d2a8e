export * from "./describe-outcome";
export * from "./refresh-tracker";
export * from "./run-steps";
