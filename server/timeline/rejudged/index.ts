export * from "./append-rejudged-changes";
export * from "./list-rejudged-changes";
