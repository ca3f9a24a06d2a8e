import type { TSetPolicy } from "@/contracts/definition/set-rule-schema";
import type { TRecord, TTrackerDefinition } from "../definition";
import type { TDeltas } from "../diff/diff-records";
import type { TDecision } from "../refresh/decide-change";
import { itemName } from "./item-values";
import { judgeSet } from "./judge-set";
import { memberValues } from "./member-values";
import type { TSetDiff } from "./set-types";
import { summarizeSet } from "./summarize-set";

export type TSetRollUp = {
  /** Members listed and not gone (one missing for fewer than missingAfter reads still counts). */
  count: number;
  /** The roll-up's lines — members, appeared, changed, disappeared — and each line's verdict and reason. */
  lines: TDeltas;
  reasons: Record<string, TDecision>;
  /** What goes on the tracker's timeline: the baseline on the first read, else material / notable, or nothing. */
  entry: {
    materiality: "baseline" | "material" | "notable";
    delta: TDeltas;
    decisions: Record<string, TDecision>;
  } | null;
  /** The roll-up in one line ("1 new; …", "baseline recorded (5 member(s))"), the cap's message after it. */
  summary: string;
};

/**
 * The set's own entry for one read, by code (docs/sets.md "How the refresh runs a set"): how many members, who
 * appeared, changed (by their own rules: noise is no news) or is gone, each line's verdict from the set's rules, and
 * the summary. Pure, so the refresh that records it and a replay that walks the captures again (docs/replay.md) say
 * exactly the same thing.
 */
export function buildRollUp(input: {
  def: TTrackerDefinition & { set: TSetPolicy };
  diff: TSetDiff;
  /** The set's first read: its baseline. */
  first: boolean;
  /** Members listed and not gone before this read. */
  before: number;
  /** This read's members' records (readMembers). */
  records: ReadonlyMap<string, TRecord>;
  /** judgeMembers' material and recorded members. */
  material: ReadonlySet<string>;
  recorded: ReadonlySet<string>;
}): TSetRollUp {
  const { def, diff, first } = input;
  const policy = def.set;
  const isMaterial = (key: string) => input.material.has(key);
  // items_changed_at_least counts members whose own rules recorded the change (material or notable), not noise.
  const isRecorded = (key: string) => input.recorded.has(key);
  const verdict = judgeSet(diff, policy, isRecorded);
  const count = input.before + diff.appeared.length + diff.reappeared.length - diff.disappeared.length;
  const lines = rollUpLines(def, diff, {
    before: input.before,
    now: count,
    records: input.records,
    recorded: input.recorded,
  });
  const moved = Object.keys(lines).length > 0 && !first;
  const recorded = first ? null : verdict.material || input.material.size > 0 ? "material" : moved ? "notable" : null;
  const formats = Object.fromEntries(def.fields.map((f) => [f.name, f]));
  const capped = diff.overCap ? `; ${diff.overCap.message}` : "";
  const summary = first
    ? `baseline recorded (${count} member(s))${capped}`
    : `${summarizeSet(diff, { isMaterial, formats })}${capped}`;
  const reasons = lineReasons(lines, {
    diff,
    policy,
    isRecorded,
    anyMaterial: input.material.size > 0,
    summary,
  });
  const entry: TSetRollUp["entry"] = first
    ? { materiality: "baseline", delta: { members: { from: null, to: count } }, decisions: {} }
    : recorded
      ? { materiality: recorded, delta: lines, decisions: reasons }
      : null;
  return { count, lines, reasons, entry, summary };
}

/** The set's own lines: how many members, and who appeared, left or changed (names as people read them). */
function rollUpLines(
  def: TTrackerDefinition,
  diff: TSetDiff,
  counts: { before: number; now: number; records: ReadonlyMap<string, TRecord>; recorded: ReadonlySet<string> },
): TDeltas {
  const name = (key: string) => itemName(key, memberValues(def, counts.records.get(key) ?? {}));
  const delta: TDeltas = {};
  if (counts.before !== counts.now) delta.members = { from: counts.before, to: counts.now };
  const appeared = [...diff.appeared, ...diff.reappeared].map((i) => name(i.key));
  if (appeared.length) delta.appeared = { from: null, to: appeared.slice(0, 50) };
  const gone = diff.disappeared.map((i) => itemName(i.key, i.values));
  if (gone.length) delta.disappeared = { from: gone.slice(0, 50), to: null };
  // Changes the member's own rules called noise are not the set's news either.
  const changed = diff.changed.filter((i) => counts.recorded.has(i.key)).map((i) => name(i.key));
  if (changed.length) delta.changed = { from: null, to: changed.slice(0, 50) };
  return delta;
}

const CHANGE_RULES = new Set(["any_item_drop", "any_item_rise", "items_changed_at_least"]);

/**
 * Each line's verdict and reason, by code: the set rules that speak to it (appeared, disappeared, the rules over
 * members' values for "changed") make it material and say why; otherwise it is notable, with what happened.
 */
function lineReasons(
  lines: TDeltas,
  input: {
    diff: TSetDiff;
    policy: TSetPolicy;
    isRecorded: (key: string) => boolean;
    anyMaterial: boolean;
    summary: string;
  },
): Record<string, TDecision> {
  const { diff, policy } = input;
  const said = (kinds: (kind: string) => boolean) =>
    judgeSet(diff, { rules: policy.rules.filter((r) => kinds(r.kind)) }, input.isRecorded).reasons;
  const line = (reasons: string[], material: boolean, otherwise: string): TDecision => ({
    verdict: material || reasons.length > 0 ? "material" : "notable",
    decidedBy: "code",
    reason: reasons.length > 0 ? reasons.join("; ") : otherwise,
  });
  const out: Record<string, TDecision> = {};
  for (const field of Object.keys(lines)) {
    if (field === "appeared")
      out[field] = line(
        said((k) => k === "appeared"),
        false,
        "new in the set",
      );
    else if (field === "disappeared")
      out[field] = line(
        said((k) => k === "disappeared"),
        false,
        `not listed for ${policy.missingAfter} reads in a row`,
      );
    else if (field === "changed")
      out[field] = line(
        said((k) => CHANGE_RULES.has(k)),
        input.anyMaterial,
        input.summary,
      );
    else
      out[field] = {
        verdict: "notable",
        decidedBy: "code",
        reason: `members listed (one missing for fewer than ${policy.missingAfter} reads still counts)`,
      };
  }
  return out;
}
