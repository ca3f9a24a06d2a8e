export * from "./apply-set-diff";
export * from "./diff-set";
export * from "./hash-set";
export * from "./item-values";
export * from "./judge-set";
export * from "./set-types";
export * from "./summarize-set";
