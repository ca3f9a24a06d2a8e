import { SET_POLICY_LIMITS, type TSetPolicy } from "@/contracts/definition/set-rule-schema";
import type { TCapability } from "../../capabilities";
import type { TField, TMaterialityRule } from "../definition";

/** A set drafted in rules mode: the member fields (each a pointer into a member's values), the policy, what to say. */
export type TDraftedSet = {
  fields: { spec: { name: string; type: TField["type"]; description: string; ptr: string }; rule: TMaterialityRule }[];
  policy: TSetPolicy;
  notes: string[];
};

/**
 * Rules mode for a source that reads many members (docs/sets.md): when the capability's descriptor has a `draftSet`
 * and its read-back of the sample lists `items`, the draft watches the members as a set — the descriptor's fields per
 * member, a new and a removed member material by code, a member gone only after the default missed reads. Null for
 * every other source, which is drafted from its sample's shape as before.
 */
export function draftSetFromSample(capability: TCapability | undefined, results: unknown): TDraftedSet | null {
  const draft = capability?.draftSet;
  if (!capability || !draft) return null;
  // The drafter holds the sample's results, not its input: a read-back reads the members from the results alone.
  const items = capability.readBack(undefined, results ?? {}).items;
  if (!items) return null;
  const policy: TSetPolicy = {
    missingAfter: SET_POLICY_LIMITS.defaultMissingAfter,
    maxEntities: SET_POLICY_LIMITS.defaultMaxEntities,
    rules: [{ kind: "appeared" }, { kind: "disappeared" }],
  };
  const fields = draft.fields.map((f) => ({
    spec: { name: f.value, type: f.type, description: f.description, ptr: `/${escapePointer(f.value)}` },
    rule: f.rule,
  }));
  const { one, many } = draft.member;
  const n = items.length;
  const named = (pick: (rule: TMaterialityRule) => boolean, or = false) =>
    joinWords(
      draft.fields.filter((f) => pick(f.rule)).map((f) => f.value),
      or ? "or" : "and",
    );
  const material = named((r) => r.kind === "any_change" || r.kind === "numeric");
  const notable = named((r) => r.kind === "ask_agent", true);
  const noise = named((r) => r.kind === "ignore", true);
  const notes = [
    [
      `I watch the ${capability.noun}'s ${n} ${n === 1 ? one : many} as a set, each with its ${joinWords(fields.map((f) => f.spec.name))}: `,
      `new and removed ${many} are material (one counts as removed after ${policy.missingAfter} reads without it)`,
      material ? `; a changed ${material} is material too` : "",
      notable ? `; an edited ${one} (its ${notable}) is notable — AI is off, so an edit is recorded, not judged` : "",
      ".",
      noise ? ` A change to its ${noise} alone is noise.` : "",
    ].join(""),
  ];
  if (n > policy.maxEntities)
    notes.push(`The ${capability.noun} lists ${n} ${many}; I keep the first ${policy.maxEntities}.`);
  return { fields, policy, notes };
}

/** RFC 6901: "~" and "/" in a key are escaped. */
function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function joinWords(items: string[], conjunction = "and"): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${conjunction} ${items.at(-1)}`;
}
