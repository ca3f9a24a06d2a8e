import type { TExtractor, TTrackerDefinition } from "../definition";
import { ANCHOR_RANK, isPositionalPricePointer } from "./price-anchors";
import type { TPageReading, TReadPrice } from "./read-page-for-draft";

/**
 * The drafting agent's definitions checked against the page reading (docs/intelligence.md): a field may not read
 * a price by its position in the text's price list (`/prices/N`) when the page offers a steadier
 * anchor — that position moves whenever a promotion or an ad adds a price above the product. Such a
 * draft is refused with the anchors to use instead (the agent repairs it once, like any invalid draft).
 * Missing availability is advice, not a refusal: the person may not care about stock.
 */

export type TAnchorCheck = { problems: string[]; advice: string[] };

const ORDINAL = (n: number) => {
  const s = ["th", "st", "nd", "rd"];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] ?? s[v] ?? s[0]}`;
};

export function describeExtractor(e: TExtractor): string {
  if (e.kind === "json_pointer") return `JSON pointer ${e.pointer}`;
  if (e.kind === "css") return `CSS ${e.selector}${e.attribute ? ` @${e.attribute}` : ""}`;
  return `regex /${e.pattern}/${e.flags ?? ""}`;
}

const anchored = (p: TReadPrice | null | undefined): p is TReadPrice =>
  !!p?.anchor && p.anchor.rank < ANCHOR_RANK.position;

function betterAnchors(reading: TPageReading): string[] {
  const out: string[] = [];
  const own = reading.ownPrice;
  if (anchored(own) && own.anchor)
    out.push(`the product's own price (${own.text}): ${describeExtractor(own.anchor.extractor)}`);
  for (const p of [...reading.otherOffers, ...reading.otherPrices])
    if (anchored(p) && p.anchor) out.push(`“${p.label}” (${p.text}): ${describeExtractor(p.anchor.extractor)}`);
  return out;
}

export function checkDraftAnchors(definition: TTrackerDefinition, reading: TPageReading | null): TAnchorCheck {
  const problems: string[] = [];
  const advice: string[] = [];
  if (!reading) return { problems, advice };
  const better = betterAnchors(reading);
  for (const field of definition.fields) {
    if (!isPositionalPricePointer(field.extractor) || field.extractor?.kind !== "json_pointer") continue;
    if (better.length === 0) continue;
    const n = /^\/prices\/(\d+)/.exec(field.extractor.pointer)?.[1];
    const which =
      n === undefined ? "the text's list of prices" : `the ${ORDINAL(Number(n) + 1)} price detected in the page text`;
    problems.push(
      `field "${field.name}" reads ${field.extractor.pointer}, ${which}; that position moves when a promotion or an ad adds a price above the product. Anchor it by meaning instead — ${better.join("; ")}`,
    );
  }
  if (reading.availability) {
    const reads = definition.fields.some(
      (f) =>
        (f.extractor?.kind === "json_pointer" && f.extractor.pointer.startsWith("/availability")) ||
        /availab|stock/i.test(f.name),
    );
    if (!reads)
      advice.push(
        `The page states availability (${reading.availability.value}) at ${reading.availability.pointer}: unless the person does not care about stock, add an availability field (any_change) with that JSON pointer.`,
      );
  }
  return { problems, advice };
}
