import type { TTrackerDefinition } from "../definition";
import { resolveJsonPointer } from "../fill";
import { describeExtractor } from "./check-draft-anchors";
import type { TSetSample } from "./set-sample";

/**
 * The drafting agent's definition checked against what the sample is (docs/sets.md, "Drafting a set"): a set of
 * members needs the `set` part and fields that read each member's own values by JSON pointer (a refresh reads them
 * so, refresh-set.ts); one page or place must not have one. Each problem is a sentence the agent can repair from.
 */
export function checkSetDraft(definition: TTrackerDefinition, set: TSetSample | null): string[] {
  if (!set)
    return definition.set
      ? ["The sample is one page or place, not a set of members: remove the `set` part (or bind a listing or a feed)."]
      : [];
  const n = set.members.length;
  if (!definition.set)
    return [
      `The sample is a set of ${n} member${n === 1 ? "" : "s"}: the definition needs its \`set\` part (missingAfter, maxEntities, rules) and fields that read each member's values by JSON pointer. Start from the sample's codeDraft.`,
    ];
  const paths = [...new Set(set.members.flatMap((m) => Object.keys(m.values).map((k) => `/${k}`)))];
  const problems: string[] = [];
  for (const field of definition.fields) {
    const e = field.extractor;
    if (!e) continue;
    if (e.kind !== "json_pointer") {
      problems.push(
        `field "${field.name}" reads ${describeExtractor(e)}; a set's fields read each member's values by JSON pointer (${paths.join(", ")}).`,
      );
    } else if (!set.members.some((m) => resolveJsonPointer(m.values, e.pointer).found)) {
      problems.push(
        `field "${field.name}" reads ${e.pointer}, which no member has; the members have ${paths.join(", ")}.`,
      );
    }
  }
  return problems;
}
