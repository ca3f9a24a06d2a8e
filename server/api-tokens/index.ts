export * from "./authenticate-api-token";
export * from "./create-api-token";
export * from "./hash-token";
export * from "./list-api-tokens";
export * from "./revoke-api-token";
