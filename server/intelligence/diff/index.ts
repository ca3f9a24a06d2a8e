export * from "./diff-records";
export * from "./normalise-value";
