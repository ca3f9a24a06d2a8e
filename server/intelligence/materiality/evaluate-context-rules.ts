import { formatFieldValue } from "@/contracts/definition/format-value";
import type { TChangeCitation } from "@/contracts/timeline";
import type { TResolvedContextValue } from "../../context";
import { isMoney, type TRecordValue } from "../definition/record-types";
import type { TTrackerDefinition } from "../definition/tracker-definition-schema";
import type { TDeltas } from "../diff/diff-records";
import type { TCodeVerdict } from "./verdict-types";

/**
 * The definition's context rules (docs/context-files.md): a field crossing a value bound from a context file is material, decided
 * by code with no model call ("their price drops below ours"). Only rules that fire decide; any other delta goes on
 * to its own materiality rule. A value no file states (null) fires nothing. Each firing rule cites the line it read;
 * a value kept after its file went (server/context/kept-context-values.ts) says so in the reason.
 */
export function evaluateContextRules(
  deltas: TDeltas,
  def: TTrackerDefinition,
  bound: Record<string, TResolvedContextValue | null>,
): { verdicts: Record<string, TCodeVerdict>; citations: TChangeCitation[] } {
  const verdicts: Record<string, TCodeVerdict> = {};
  const citations: TChangeCitation[] = [];
  for (const rule of def.contextRules ?? []) {
    const delta = deltas[rule.field];
    const ours = bound[rule.value];
    if (!delta || !ours || verdicts[rule.field]) continue;
    const from = amountOf(delta.from);
    const to = amountOf(delta.to);
    if (from === null || to === null) continue;
    const crossed =
      rule.when === "drops_below" ? from >= ours.value && to < ours.value : from <= ours.value && to > ours.value;
    if (!crossed) continue;
    const verb = rule.when === "drops_below" ? "dropped below" : "rose above";
    // The bound number reads in the field's money, when it is money ("$10.00").
    const oursShown = formatFieldValue(
      isMoney(delta.to) ? { amount: ours.value, currency: delta.to.currency } : ours.value,
    );
    verdicts[rule.field] = {
      verdict: "material",
      decidedBy: "code",
      rule: { kind: "context", context: rule },
      reason: `${rule.field}: ${formatFieldValue(delta.from)} → ${formatFieldValue(delta.to)} ${verb} ${rule.value} ${oursShown} (${ours.fileName}, ${ours.location}${keptNote(ours)}) → material`,
    };
    citations.push({
      fileId: ours.fileId,
      fileName: ours.fileName,
      chunkId: null,
      location: ours.location,
      quote: ours.quote,
      fields: [rule.field],
      cited: true,
    });
  }
  return { verdicts, citations };
}

/** "; kept: file removed 2026-12-06": the day in UTC, so the refresh and a replay write the same reason. */
function keptNote(ours: TResolvedContextValue): string {
  if (!ours.kept) return "";
  const what = ours.kept.reason === "removed" ? "file removed" : "no longer in the file since it was replaced";
  return `; kept: ${what}${ours.kept.since ? ` ${ours.kept.since.slice(0, 10)}` : ""}`;
}

function amountOf(value: TRecordValue): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (isMoney(value) && Number.isFinite(value.amount)) return value.amount;
  return null;
}
