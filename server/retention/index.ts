export * from "./maybe-prune-runs";
export * from "./prune-refresh-runs";
