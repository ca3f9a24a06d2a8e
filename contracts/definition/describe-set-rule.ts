import { formatNumber } from "./format-number";
import type { TSetRule } from "./set-rule-schema";

/**
 * One plain-language line per set rule, in the words describeRule uses for a field's rule (describe-rule.ts):
 * "material when any item's price drops by 10% or more", "material when a new item appears within 500 m".
 * `missingAfter` (the set policy's) says what "gone" means when given.
 */
export function describeSetRule(rule: TSetRule, missingAfter?: number): string {
  switch (rule.kind) {
    case "any_item_drop":
      return `material when any item's ${rule.field} drops by ${formatNumber(rule.minPercent)}% or more`;
    case "any_item_rise":
      return `material when any item's ${rule.field} rises by ${formatNumber(rule.minPercent)}% or more`;
    case "items_changed_at_least":
      return rule.count === 1
        ? "material when any item changes"
        : `material when ${formatNumber(rule.count)} or more items change in one check`;
    case "appeared":
      return rule.withinMeters === undefined
        ? "material when a new item appears"
        : `material when a new item appears within ${formatDistance(rule.withinMeters)}`;
    case "disappeared":
      return missingAfter === undefined
        ? "material when an item is gone"
        : missingAfter === 1
          ? "material when an item is gone (missing from one read)"
          : `material when an item is gone (missing from ${formatNumber(missingAfter)} reads in a row)`;
  }
}

/** 500 → "500 m", 1500 → "1.5 km". */
export function formatDistance(meters: number): string {
  return meters >= 1000 ? `${formatNumber(Number((meters / 1000).toFixed(2)))} km` : `${formatNumber(meters)} m`;
}
