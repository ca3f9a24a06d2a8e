export * from "./async-queue";
export * from "./event-bus";
export * from "./topics";
