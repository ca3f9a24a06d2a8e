export * from "./replay-basis";
export * from "./replay-definition";
export * from "./replay-fill";
