export * from "./evaluate-context-rules";
export * from "./evaluate-deltas";
export * from "./pick-undecided";
export * from "./summarise-verdicts";
export * from "./verdict-types";
