export * from "./create-tracker";
export * from "./get-locked-definition";
export * from "./get-tracker";
export * from "./lock-definition";
export * from "./save-draft-definition";
export * from "./set-tracker-status";
