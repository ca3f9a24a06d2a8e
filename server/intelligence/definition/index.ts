/**
 * The server's door to the tracker definition: its shape from contracts/definition (shared with the browser) with the
 * checks only the server can run (regex-safety, CSS selectors), and the server's helpers on it (record schemas, rules).
 */
export * from "@/contracts/definition/context-rule-schema";
export * from "@/contracts/definition/describe-rule";
export * from "@/contracts/definition/format-number";
export * from "@/contracts/definition/materiality-rule-schema";
export { canonicalJson } from "../../lib/canonical-json";
export * from "./build-record-schema";
export * from "./field-schema";
export * from "./identity-rule-schema";
export * from "./parse-definition";
export * from "./record-types";
export * from "./regex-safety";
export * from "./reserved-fields";
export * from "./tracker-definition-schema";
