import type { TPriceCandidate } from "./price-candidates";

/**
 * Ranks a page's price candidates by the words of the decision or a chat turn (docs/intelligence.md,
 * "decision-aware drafting"): a candidate wins when words that tell it apart from the others — its plan
 * or variant name, "annual" against "monthly", "500 g" against "250 g" — are words the person used. A
 * word every candidate shares ("plan", the product's name) tells nothing apart and counts for nothing.
 * Ties go to the price the page shows (not a hidden toggle or an option), then the steadier anchor,
 * then page order. No winner when nothing the person said names one of them.
 */

const STOP = new Set(
  (
    "the a an of on in at for to and or is are be it its this that us me my we our you your if when whether tell let know " +
    "watch watching track keep eye see price prices pricing plan plans tier cost costs cheaper expensive more less gets " +
    "get getting going goes up down drop drops dropped rise rises change changes changed undercut undercutting instead " +
    "use now please just only one per user seat product item stock availability available page site shop store der die das und oder ist wenn preis tarif le la les et du des prix"
  ).split(" "),
);
const NAMING_WEIGHT = 3;
const ANNUAL = /^(annual|annually|yearly|year|years|yr|yearly|jährlich|jahr|jahres|annuel|année|anual|annuale)$/;
const MONTHLY = /^(month|months|monthly|mo|monat|monatlich|mois|mensuel|mes|mensual|mese)$/;

/**
 * Words of a text, lowercased, periods folded to @annual / @monthly; one letter only when a number — or as a
 * capital right after a word, where it names a variant with that word ("Widget B" gives "widget" and "widget b").
 */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  let previous: string | null = null;
  for (const original of text.match(/[\p{L}\p{N}]+/gu) ?? []) {
    const raw = original.toLowerCase();
    const w = ANNUAL.test(raw) ? "@annual" : MONTHLY.test(raw) ? "@monthly" : raw;
    const letter = w.length < 2 && !/\d/.test(w);
    if (letter && previous && /^\p{Lu}$/u.test(original)) out.push(`${previous} ${w}`);
    previous = STOP.has(w) || letter ? null : w;
    if (previous) out.push(w);
  }
  return out;
}

function weightsOf(c: TPriceCandidate): Map<string, number> {
  const m = new Map<string, number>();
  const add = (words: string, weight: number) => {
    for (const w of wordsOf(words)) m.set(w, Math.max(m.get(w) ?? 0, weight));
  };
  add(c.label, 4);
  for (const x of c.context) add(x.words, x.weight);
  return m;
}

export type TRankedCandidate = { candidate: TPriceCandidate; index: number; score: number; matched: string[] };

export function rankCandidates(candidates: readonly TPriceCandidate[], text: string): TRankedCandidate[] {
  if (candidates.length < 2) return [];
  const wanted = new Set(wordsOf(text));
  const weights = candidates.map(weightsOf);
  const everywhere = (w: string) => weights.every((m) => m.has(w));
  const ranked = candidates.map((candidate, index) => {
    let score = 0;
    let strongest = 0;
    const matched: string[] = [];
    for (const w of wanted) {
      const weight = weights[index]?.get(w);
      if (!weight || everywhere(w)) continue;
      score += weight;
      strongest = Math.max(strongest, weight);
      matched.push(w);
    }
    // A word merely near a price (a stock line, a feature) does not name it: a name, heading, button or column must.
    return { candidate, index, score: strongest >= NAMING_WEIGHT ? score : 0, matched };
  });
  return ranked
    .filter((r) => r.score > 0)
    .sort(
      (x, y) =>
        y.score - x.score ||
        Number(y.candidate.shown) - Number(x.candidate.shown) ||
        x.candidate.anchor.rank - y.candidate.anchor.rank ||
        x.index - y.index,
    );
}

/** The candidate the text names, or null. */
export function namedCandidate(candidates: readonly TPriceCandidate[], text: string): TRankedCandidate | null {
  return rankCandidates(candidates, text)[0] ?? null;
}

/** The words it was chosen by, as the person wrote them ("Pro", "annual"). */
export function matchedWords(r: TRankedCandidate, text: string): string[] {
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: string[] = [];
  for (const w of r.matched) {
    // A word, or a word and the capital after it ("Widget B").
    const pairs = words.slice(1).map((x, i) => `${words[i]} ${x}`);
    const original = w.includes(" ")
      ? pairs.find((pair) => wordsOf(pair).includes(w))
      : words.find((x) => wordsOf(x)[0] === w);
    if (original && !out.includes(original)) out.push(original);
  }
  return out;
}
