export * from "./bind-and-sample";
export * from "./draft-view";
export * from "./fallback";
export * from "./find-target";
export * from "./handle-setup-message";
export * from "./save-setup-draft";
export * from "./session";
export * from "./types";
