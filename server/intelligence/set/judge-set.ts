import { formatDistance } from "@/contracts/definition/describe-set-rule";
import { formatMeasuredPercent, formatNumber } from "@/contracts/definition/format-number";
import {
  DISTANCE_METERS,
  type TAnyItemDropRule,
  type TAnyItemRiseRule,
  type TSetPolicy,
  type TSetRule,
} from "@/contracts/definition/set-rule-schema";
import { itemName, readNumber, relativeMove, round } from "./item-values";
import { countOf, nameList, shownValue } from "./name-list";
import type { TAppearedItem, TSetDiff } from "./set-types";

export type TSetVerdict = { material: boolean; reasons: string[] };

/**
 * Applies the set's rules to a diff, by code (docs/design.md: "the agent judges, code computes"; §4 "rules over the
 * set"): material when any rule fires, with one short sentence per rule that fired. Each item is judged field by field
 * by the definition's own rules elsewhere; `perItemChanged` says which changes they recorded (material or notable, not
 * noise), for items_changed_at_least.
 */
export function judgeSet(
  diff: TSetDiff,
  policy: Pick<TSetPolicy, "rules">,
  perItemChanged: (key: string) => boolean,
): TSetVerdict {
  const reasons: string[] = [];
  for (const rule of policy.rules) {
    const reason = fire(rule, diff, perItemChanged);
    if (reason !== null) reasons.push(reason);
  }
  return { material: reasons.length > 0, reasons };
}

function fire(rule: TSetRule, diff: TSetDiff, perItemChanged: (key: string) => boolean): string | null {
  switch (rule.kind) {
    case "any_item_drop":
    case "any_item_rise":
      return moved(rule, diff);
    case "items_changed_at_least": {
      const changed = diff.changed.filter((item) => perItemChanged(item.key));
      if (changed.length < rule.count) return null;
      const names = changed.map((item) => itemName(item.key, item.values));
      return `${countOf(changed.length, "item")} changed (at least ${formatNumber(rule.count)}): ${nameList(names)}`;
    }
    case "appeared": {
      const within = rule.withinMeters;
      const back = new Set(diff.reappeared.map((item) => item.key));
      const candidates: TAppearedItem[] = [...diff.appeared, ...diff.reappeared];
      const parts: string[] = [];
      for (const item of candidates) {
        const name = itemName(item.key, item.values) + (back.has(item.key) ? " (back)" : "");
        if (within === undefined) {
          parts.push(name);
          continue;
        }
        const distance = readNumber(item.values[DISTANCE_METERS])?.amount;
        // An item without a distance cannot be said to be near: it does not count.
        if (distance !== undefined && distance >= 0 && round(distance) <= round(within)) {
          parts.push(`${name} (${formatDistance(distance)})`);
        }
      }
      if (parts.length === 0) return null;
      const where = within === undefined ? "" : ` within ${formatDistance(within)}`;
      return `${countOf(parts.length, "new item")}${where}: ${nameList(parts)}`;
    }
    case "disappeared": {
      if (diff.disappeared.length === 0) return null;
      const names = diff.disappeared.map((item) => itemName(item.key, item.values));
      return `${countOf(diff.disappeared.length, "item")} gone: ${nameList(names)}`;
    }
  }
}

type TMoveHit = { key: string; name: string; from: string | null; to: string | null; size: number };

/** any_item_drop / any_item_rise: the items whose field moved that way by minPercent or more, in the diff's order. */
function moveHits(rule: TAnyItemDropRule | TAnyItemRiseRule, diff: TSetDiff): TMoveHit[] {
  const drop = rule.kind === "any_item_drop";
  const threshold = round(rule.minPercent / 100);
  const hits: TMoveHit[] = [];
  for (const item of diff.changed) {
    const change = item.changes.find((c) => c.field === rule.field);
    if (!change) continue;
    const ratio = relativeMove(change.from, change.to);
    if (ratio === null || ratio === 0 || ratio < 0 !== drop) continue;
    const size = Math.abs(ratio);
    if (size >= threshold)
      hits.push({ key: item.key, name: itemName(item.key, item.values), from: change.from, to: change.to, size });
  }
  return hits;
}

/**
 * The members a drop or rise rule fired on, and the fields it read: their change is material by the set's rule even
 * where the field's own rule calls it noise (docs/sets.md), so the roll-up names them and their own entry says why.
 */
export function membersMovedByRules(diff: TSetDiff, policy: Pick<TSetPolicy, "rules">): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const rule of policy.rules) {
    if (rule.kind !== "any_item_drop" && rule.kind !== "any_item_rise") continue;
    for (const hit of moveHits(rule, diff)) out.set(hit.key, [...(out.get(hit.key) ?? []), rule.field]);
  }
  return out;
}

/** any_item_drop / any_item_rise: one sentence naming the items that moved, biggest move first. */
function moved(rule: TAnyItemDropRule | TAnyItemRiseRule, diff: TSetDiff): string | null {
  const drop = rule.kind === "any_item_drop";
  const threshold = round(rule.minPercent / 100);
  const hits = moveHits(rule, diff);
  if (hits.length === 0) return null;
  hits.sort((a, b) => b.size - a.size); // stable: equal moves keep the source's order
  const sign = drop ? "−" : "+";
  const verb = drop ? "dropped" : "rose";
  const line = (hit: (typeof hits)[number]) => {
    const percent = Number.isFinite(hit.size) ? `${sign}${formatMeasuredPercent(hit.size, threshold)}` : "from 0";
    return `${shownValue(hit.from)} → ${shownValue(hit.to)} (${percent})`;
  };
  const what = `${rule.field} ${verb} by ${formatNumber(rule.minPercent)}% or more`;
  const [first] = hits;
  if (hits.length === 1 && first) return `${first.name} ${what}: ${line(first)}`;
  return `${what} on ${countOf(hits.length, "item")}: ${nameList(hits.map((hit) => `${hit.name} ${line(hit)}`))}`;
}
