export * from "./chunk-text";
export * from "./context-file-view";
export * from "./context-limits";
export * from "./delete-context-file";
export * from "./extract-text";
export * from "./list-context-files";
export * from "./retrieve-context";
export * from "./save-context-file";
