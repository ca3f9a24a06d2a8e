import type { z } from "zod";

/** zod issues as short lines a model (in a repair message) or a person can act on. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)";
    if (issue.code === "unrecognized_keys") {
      return `${where}: field(s) not in the schema: ${issue.keys.join(", ")} — remove them; the schema is fixed`;
    }
    return `${where}: ${issue.message}`;
  });
}
