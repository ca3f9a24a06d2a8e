export * from "./background-queue";
export * from "./enhance-after-pass";
export * from "./enhance-in-background";
