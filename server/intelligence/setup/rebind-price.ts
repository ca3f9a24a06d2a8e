import type { TField, TTrackerDefinition } from "../definition";
import { candidateField, toFieldName } from "./fallback";
import type { TPriceCandidate } from "./price-candidates";
import { matchedWords, rankCandidates } from "./rank-price-candidates";

/**
 * Rules-mode chat rebinding by label (docs/intelligence.md, "decision-aware drafting"): "watch the Pro
 * price instead", "use the annual price", "the Team plan" points the card's main price field at the
 * page's price those words name, from the candidates kept with the sample. Words the message shares with
 * the field's current price ("Business" when it says only "annual") break ties, so "use the annual
 * price" moves Business monthly to Business annual, not to the first annual price. Pure.
 */

/** A short message that asks to watch something else, not a rule or a schedule. */
const REBIND_ASK =
  /^\s*(?:(?:no|ok|okay|actually|please|now)[,\s]+)*(?:(?:watch|use|track|follow|take|switch to|bind|pick|choose|i mean|i meant|rather|instead)\b|the\b|\S+(?:\s+\S+){0,3}\s+(?:plan|tier|price|variant|option|one|size|colou?r)\b)/i;

export type TRebound = { definition: TTrackerDefinition; said: string[] };

/** The draft's main price field: its first money or number field (the one the drafter anchors to the named price). */
export const mainPriceField = (definition: TTrackerDefinition): TField | undefined =>
  definition.fields.find((f) => f.type === "money" || f.type === "number");
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function rebindPriceByWords(
  definition: TTrackerDefinition,
  candidates: readonly TPriceCandidate[],
  text: string,
): TRebound | null {
  if (candidates.length < 2 || text.length > 120 || !REBIND_ASK.test(text)) return null;
  const main = mainPriceField(definition);
  const current = main ? watchedCandidate(main, candidates) : undefined;
  const ranked = rankCandidates(candidates, text);
  const top = ranked[0];
  if (!top) return null;
  // Among the ones the message names equally, the one that shares most with what is watched now.
  const tied = ranked.filter((r) => r.score === top.score).map((r) => r.candidate);
  const byCurrent = current ? rankCandidates(tied.length > 1 ? tied : [], current.label)[0] : undefined;
  const pick = byCurrent?.candidate ?? top.candidate;
  return rebindPriceTo(definition, candidates, pick, matchedWords(top, text));
}

/** The candidate a field reads now (same extractor), if it reads one of them. */
export function watchedCandidate(field: TField, candidates: readonly TPriceCandidate[]): TPriceCandidate | undefined {
  return candidates.find((c) => same(c.anchor.extractor, field.extractor));
}

/**
 * Points the draft's main price field (the first money or number field) at `pick`, keeping its rule; a draft without
 * one gets a new first field. `named`: the person's words that chose it, for the reply. Pure.
 */
export function rebindPriceTo(
  definition: TTrackerDefinition,
  candidates: readonly TPriceCandidate[],
  pick: TPriceCandidate,
  named: readonly string[] = [],
): TRebound {
  const main = mainPriceField(definition);
  const current = main ? watchedCandidate(main, candidates) : undefined;
  if (main && same(pick.anchor.extractor, main.extractor)) {
    return {
      definition,
      said: [`${main.name} already watches ${pick.label || "that price"} (${pick.text} on the sample).`],
    };
  }
  const spec = candidateField(pick);
  let name = toFieldName(spec.name);
  const others = definition.fields.filter((f) => f !== main);
  for (let i = 2; others.some((f) => f.name === name); i++) name = `${toFieldName(spec.name)}_${i}`;
  const field: TField = {
    name,
    type: spec.type,
    description: spec.description.slice(0, 500),
    ...(spec.currency ? { currency: spec.currency } : {}),
    extractor: spec.extractor ?? { kind: "json_pointer", pointer: "" },
  };
  const materiality = { ...definition.materiality };
  const rule = main ? materiality[main.name] : undefined;
  if (main) delete materiality[main.name];
  materiality[name] = rule ?? { kind: "numeric", relative: 0.01 };
  const fields = main ? definition.fields.map((f) => (f === main ? field : f)) : [field, ...definition.fields];
  return {
    definition: { ...definition, fields, materiality },
    said: [
      `Now ${name} watches ${pick.label || "that price"}: ${pick.where}; it reads ${pick.text} on the sample${named.length ? ` (you named ${named.map((w) => `“${w}”`).join(" and ")})` : ""}.`,
      ...(main
        ? [`It replaces ${main.name}${current ? ` (${current.label}, ${current.text})` : ""}, with the same rule.`]
        : []),
    ],
  };
}
