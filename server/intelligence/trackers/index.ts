export * from "./create-tracker";
export * from "./get-locked-definition";
export * from "./get-tracker";
export * from "./list-definition-versions";
export * from "./list-trackers";
export * from "./lock-definition";
export * from "./save-draft-definition";
export * from "./set-tracker-status";
