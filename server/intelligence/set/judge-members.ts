import type { TRecord, TTrackerDefinition } from "../definition";
import { diffRecords, type TDeltas } from "../diff/diff-records";
import { summariseVerdicts } from "../materiality/summarise-verdicts";
import type { TDecision } from "../refresh/decide-change";
import type { TChangedItem } from "./set-types";

export type TJudgedMember = {
  item: TChangedItem;
  /** The member's own deltas (its accepted record → this read), as diffRecords finds them. */
  deltas: TDeltas;
  byField: Record<string, TDecision>;
  outcome: "material" | "notable" | "noise";
  /** The deltas the member's own timeline entry keeps (noise left out). */
  kept: TDeltas;
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
    const deltas = diffRecords(input.before(item.key), input.after(item.key), input.def);
    const byField = await input.judge(item, deltas);
    const overall = summariseVerdicts(byField);
    const outcome = overall === "none" ? "noise" : overall;
    const kept: TDeltas = {};
    for (const [field, delta] of Object.entries(deltas)) if (byField[field]?.verdict !== "noise") kept[field] = delta;
    out.members.push({ item, deltas, byField, outcome, kept });
    if (outcome !== "noise") out.recorded.add(item.key);
    if (outcome === "material") out.material.add(item.key);
  }
  return out;
}
