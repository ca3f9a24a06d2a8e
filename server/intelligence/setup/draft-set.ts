import { SET_POLICY_LIMITS, type TSetPolicy, type TSetRule } from "@/contracts/definition/set-rule-schema";
import type { TCapability } from "../../capabilities";
import type { TField, TMaterialityRule } from "../definition";

/** A set drafted in rules mode: the member fields (each a pointer into a member's values), the policy, what to say. */
export type TDraftedSet = {
  fields: {
    spec: { name: string; type: TField["type"]; description: string; ptr: string; currency?: string };
    rule: TMaterialityRule;
  }[];
  policy: TSetPolicy;
  notes: string[];
};

/** One member field of a drafted set: the value it reads (`/<value>` in each member's values) and its rule. */
export type TSetFieldDraft = {
  value: string;
  type: TField["type"];
  description: string;
  rule: TMaterialityRule;
  currency?: string;
};

/** A drop rule on one money or number field of every member (judged by code, docs/sets.md). */
export type TSetDropDraft = { field: string; minPercent: number };

/**
 * A set in rules mode, whatever reads it (a feed's entries, a listing's items; docs/sets.md): the member fields, the
 * default policy (a new and a removed member are material by code; a member is gone only after the default missed
 * reads) plus an optional drop rule, and one sentence saying all of it in words.
 */
export function draftSet(input: {
  /** "the feed's 5 entries", "the 12 products on this page". */
  watched: string;
  /** What tells members apart, in words ("their URL"); said when given. */
  identity?: string;
  /** The source, for the over-cap note ("The feed lists 600 entries"). */
  source: string;
  member: { one: string; many: string };
  members: number;
  fields: TSetFieldDraft[];
  drop?: TSetDropDraft | null;
}): TDraftedSet {
  const { member, fields, drop } = input;
  const rules: TSetRule[] = [{ kind: "appeared" }, { kind: "disappeared" }];
  if (drop) rules.push({ kind: "any_item_drop", field: drop.field, minPercent: drop.minPercent });
  const policy: TSetPolicy = {
    missingAfter: SET_POLICY_LIMITS.defaultMissingAfter,
    maxEntities: SET_POLICY_LIMITS.defaultMaxEntities,
    rules,
  };
  const named = (pick: (rule: TMaterialityRule) => boolean, conjunction = "and") =>
    joinWords(
      fields.filter((f) => pick(f.rule)).map((f) => f.value),
      conjunction,
    );
  const changed = named((r) => r.kind === "any_change" || (r.kind === "numeric" && r.relative === undefined));
  // A relative threshold is said as one ("a move of 1 % or more in its price"), so the reply is not looser than the rule.
  const moved = fields.flatMap((f) =>
    f.rule.kind === "numeric" && f.rule.relative !== undefined
      ? [`a move of ${percent(f.rule.relative * 100)} % or more in its ${f.value}`]
      : [],
  );
  const material = joinWords([...(changed ? [`a changed ${changed}`] : []), ...moved], "or");
  const notable = named((r) => r.kind === "ask_agent", "or");
  const noise = named((r) => r.kind === "ignore", "or");
  const { one, many } = member;
  const notes = [
    [
      `I watch ${input.watched} as a set${input.identity ? ` (identified by ${input.identity})` : ""}, `,
      `each with its ${joinWords(fields.map((f) => f.value))}: `,
      `new and removed ${many} are material (one counts as removed after ${policy.missingAfter} reads without it)`,
      material ? `; ${material} is material too` : "",
      notable ? `; an edited ${one} (its ${notable}) is notable — AI is off, so an edit is recorded, not judged` : "",
      ".",
      noise ? ` A change to its ${noise} alone is noise.` : "",
      drop
        ? ` A drop of ${percent(drop.minPercent)} % or more in any ${one}'s ${drop.field} is material too, and named in the set's summary.`
        : "",
    ].join(""),
  ];
  if (input.members > policy.maxEntities)
    notes.push(`The ${input.source} lists ${input.members} ${many}; I keep the first ${policy.maxEntities}.`);
  return {
    fields: fields.map((f) => ({
      spec: {
        name: f.value,
        type: f.type,
        description: f.description,
        ptr: `/${escapePointer(f.value)}`,
        ...(f.currency ? { currency: f.currency } : {}),
      },
      rule: f.rule,
    })),
    policy,
    notes,
  };
}

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
  const n = items.length;
  return draftSet({
    watched: `the ${capability.noun}'s ${n} ${n === 1 ? draft.member.one : draft.member.many}`,
    source: capability.noun,
    member: draft.member,
    members: n,
    fields: draft.fields,
  });
}

/** "10", "2.5": a percentage as people write it. */
function percent(value: number): string {
  return String(Number(value.toFixed(2)));
}

/** RFC 6901: "~" and "/" in a key are escaped. */
function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function joinWords(items: string[], conjunction = "and"): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${conjunction} ${items.at(-1)}`;
}
