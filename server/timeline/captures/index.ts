export * from "./encode-capture";
export * from "./list-run-captures";
export * from "./store-capture-sql";
export * from "./thin-captures";
