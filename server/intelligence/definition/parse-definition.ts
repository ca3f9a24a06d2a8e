import type { z } from "zod";
import { type TTrackerDefinition, ZTrackerDefinitionSchema } from "./tracker-definition-schema";

export type TParseDefinitionResult = { ok: true; definition: TTrackerDefinition } | { ok: false; errors: string[] };

/**
 * Validates a definition and, on failure, returns one readable line per problem, naming the field
 * ("fields[2] (price) › currency: a money field needs a currency…") so the setup chat can show it as is.
 */
export function parseDefinition(input: unknown): TParseDefinitionResult {
  const parsed = ZTrackerDefinitionSchema.safeParse(input);
  if (parsed.success) return { ok: true, definition: parsed.data };
  return { ok: false, errors: formatDefinitionIssues(parsed.error.issues, input) };
}

export function formatDefinitionIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string[] {
  const lines = issues.map((issue) => {
    const where = formatPath(issue.path, input);
    return where ? `${where}: ${issue.message}` : issue.message;
  });
  return [...new Set(lines)];
}

function formatPath(path: readonly PropertyKey[], input: unknown): string {
  let out = "";
  let node: unknown = input;
  for (const key of path) {
    if (typeof key === "number") {
      out += `[${key}]`;
      node = Array.isArray(node) ? node[key] : undefined;
      // Name the field when the path goes through fields[i]; indices alone are hard to read.
      const name = isRecord(node) && typeof node.name === "string" && node.name ? node.name : null;
      if (name && out.endsWith(`fields[${key}]`)) out += ` (${name})`;
    } else {
      out += out ? ` › ${String(key)}` : String(key);
      node = isRecord(node) ? node[String(key)] : undefined;
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
