export * from "./citations";
export * from "./context-retriever";
export * from "./describe-fields-for-judge";
export * from "./fallback";
export * from "./judge-deltas";
export * from "./prompt";
export * from "./schema";
