import type { TRecord, TTrackerDefinition } from "../definition";
import { diffRecords, type TDeltas } from "../diff/diff-records";
import { summariseVerdicts } from "../materiality/summarise-verdicts";
import { acceptFields, type TDecision } from "../refresh/decide-change";
import type { TChangedItem } from "./set-types";

export type TJudgedMember = {
  item: TChangedItem;
  /** The member's own deltas (its accepted record → this read), as diffRecords finds them. */
  deltas: TDeltas;
  byField: Record<string, TDecision>;
  outcome: "material" | "notable" | "noise";
  /** The deltas the member's own timeline entry keeps (noise left out). */
  kept: TDeltas;
  /**
   * The record kept as the member's state: this read's, except a numeric field whose move its rule called noise keeps
   * its old value, so slow drift adds up until it crosses the threshold (docs/design.md §3, as for one entity).
   */
  accepted: TRecord;
  before: TRecord;
  after: TRecord;
};

export type TJudgedMembers = {
  members: TJudgedMember[];
  /** Members whose own rules found a material change (the roll-up is then material). */
  material: Set<string>;
  /** Members with a material or notable change: the roll-up's "changed" line names them, noise is no news. */
  recorded: Set<string>;
};

/**
 * The changed members judged field by field like a single entity (docs/sets.md step 3), in the diff's order. How a
 * verdict is reached is the caller's (`judge`: the refresh's judge step, or a replay's stored verdicts and budget);
 * what the verdicts come to is decided here, once for both.
 */
export async function judgeMembers(input: {
  def: TTrackerDefinition;
  changed: readonly TChangedItem[];
  /** The member's accepted record, and what this read filled. */
  before: (key: string) => TRecord;
  after: (key: string) => TRecord;
  judge: (item: TChangedItem, deltas: TDeltas) => Promise<Record<string, TDecision>>;
}): Promise<TJudgedMembers> {
  const out: TJudgedMembers = { members: [], material: new Set(), recorded: new Set() };
  for (const item of input.changed) {
    const before = input.before(item.key);
    const after = input.after(item.key);
    const deltas = diffRecords(before, after, input.def);
    const byField = await input.judge(item, deltas);
    add(out, settled(input.def, { item, deltas, byField, before, after }));
  }
  return out;
}

/**
 * The members the set's own drop or rise rules named (judge-set.ts `membersMovedByRules`): the fields they read are
 * material by the set's rule, whatever the field's own rule said, so the member's entry records the move and says why.
 */
export function applySetRulesToMembers(
  def: TTrackerDefinition,
  judged: TJudgedMembers,
  moved: ReadonlyMap<string, readonly string[]>,
): TJudgedMembers {
  if (moved.size === 0) return judged;
  const out: TJudgedMembers = { members: [], material: new Set(), recorded: new Set() };
  for (const member of judged.members) {
    const fields = moved.get(member.item.key);
    if (!fields) {
      add(out, member);
      continue;
    }
    const byField = { ...member.byField };
    for (const field of fields) {
      if (!member.deltas[field]) continue;
      byField[field] = {
        verdict: "material",
        decidedBy: "code",
        reason: `${field} moved past the set's rule (${member.byField[field]?.reason ?? "its own rule called it noise"})`,
        rule: "set",
      };
    }
    add(out, settled(def, { ...member, byField }));
  }
  return out;
}

function settled(
  def: TTrackerDefinition,
  m: Pick<TJudgedMember, "item" | "deltas" | "byField" | "before" | "after">,
): TJudgedMember {
  const overall = summariseVerdicts(m.byField);
  const outcome = overall === "none" ? "noise" : overall;
  const kept: TDeltas = {};
  for (const [field, delta] of Object.entries(m.deltas)) if (m.byField[field]?.verdict !== "noise") kept[field] = delta;
  return { ...m, outcome, kept, accepted: acceptFields(def, m.before, m.after, m.deltas, m.byField) };
}

function add(out: TJudgedMembers, member: TJudgedMember): void {
  out.members.push(member);
  if (member.outcome !== "noise") out.recorded.add(member.item.key);
  if (member.outcome === "material") out.material.add(member.item.key);
}
