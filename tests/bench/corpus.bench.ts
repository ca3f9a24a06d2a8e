import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { closePageWorkers, detectPrices } from "@/server/capabilities";
import { parseNumberText } from "@/server/intelligence/fill";
import { scoreArticleVariants } from "../fixtures/corpus/evaluate-article-variants";
import { scoreCorpus } from "../fixtures/corpus/evaluate-corpus";
import { drafterLines, scoreDrafter } from "../fixtures/corpus/evaluate-drafter";
import { planLines, scorePlans } from "../fixtures/corpus/evaluate-plans";
import type { TBenchmark } from "./harness";

/**
 * `npm run bench -- corpus`: accuracy of page understanding on the corpus in tests/fixtures/corpus —
 * offers and availability found, hash stability under volatile-only variants (nonces, stamps, session
 * ids in URLs and redirects, rolling priceValidUntil), entity-key stability, changes seen — and, when
 * the price-string table exists, how many strings detectPrices/parseNumberText read right — and the
 * rules-mode drafter: the product's own price picked and kept when a promotion or an ad is inserted above
 * it, availability proposed, articles drafted as text (tests/fixtures/corpus/evaluate-drafter.ts), and on
 * multi-plan pages the plan or variant the decision names bound as the main price field (evaluate-plans.ts).
 * Figures, not timings: the corpus tests require 100 % of the page figures and ≥ 95 % of the drafter's.
 */

type TPriceString = { text: string; amount: number | null; currency: string | null };

const pct = (n: number, of: number) => (of === 0 ? "n/a" : `${((100 * n) / of).toFixed(1)} %`);
const line = (label: string, n: number, of: number) =>
  `  ${label.padEnd(44)} ${`${n}/${of}`.padStart(9)}  ${pct(n, of)}`;
const near = (a: number, b: number) => Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(b));

async function loadPriceStrings(): Promise<TPriceString[] | null> {
  const spec = "../fixtures/corpus/price-strings.ts";
  if (!existsSync(fileURLToPath(new URL(spec, import.meta.url)))) return null;
  const mod = (await import(/* @vite-ignore */ spec)) as { PRICE_STRINGS?: TPriceString[] };
  return Array.isArray(mod.PRICE_STRINGS) ? mod.PRICE_STRINGS : null;
}

async function runCorpusBench(_args: unknown, out: (line: string) => void): Promise<void> {
  const summary = scoreCorpus();
  out(`corpus: ${summary.pages} pages (tests/fixtures/corpus/pages)`);
  out(line("structured offers found (price, currency)", summary.offers.found, summary.offers.of));
  out(line("availability found", summary.availability.found, summary.availability.of));
  out(
    line(
      `hash stable (${summary.hashStable.variants} volatile-only variants)`,
      summary.hashStable.stable,
      summary.hashStable.of,
    ),
  );
  out(line("entity key stable (session redirects)", summary.entityKeyStable.stable, summary.entityKeyStable.of));
  out(line("price change moves the hash", summary.priceChanges.moved, summary.priceChanges.of));
  out(line("availability change moves the hash", summary.availabilityChanges.moved, summary.availabilityChanges.of));
  for (const s of summary.scores) for (const p of s.problems) out(`    ${s.id}: ${p}`);
  try {
    for (const l of drafterLines(await scoreDrafter())) out(l);
    for (const l of planLines(await scorePlans())) out(l);
    const articles = await scoreArticleVariants();
    out(`article variants: ${articles.pages} articles (tests/fixtures/corpus/pages/article-variants.ts)`);
    out(line("drafted as an article", articles.readAsArticle, articles.pages));
    out(line("quiet variants: record unchanged", articles.quiet.unchangedRecord, articles.quiet.of));
    out(line("quiet variants: page hash unchanged", articles.quiet.unchangedHash, articles.quiet.of));
    out(line("body edits recorded", articles.bodyEdits.recorded, articles.bodyEdits.of));
  } finally {
    await closePageWorkers();
  }

  const strings = await loadPriceStrings();
  if (!strings) {
    out("price strings: tests/fixtures/corpus/price-strings.ts not present; section skipped");
    return;
  }
  const withPrice = strings.filter((s) => s.amount !== null);
  const without = strings.filter((s) => s.amount === null);
  let amountOk = 0;
  let bothOk = 0;
  let agree = 0;
  const misses: string[] = [];
  for (const s of withPrice) {
    const first = detectPrices(s.text)[0];
    const amount = first ? near(first.amount, s.amount as number) : false;
    if (amount) amountOk++;
    if (amount && (s.currency === null || first?.currency === s.currency)) bothOk++;
    else if (misses.length < 15)
      misses.push(`"${s.text}" → ${first ? `${first.amount} ${first.currency}` : "nothing"}`);
    const parsed = parseNumberText(s.text);
    if (parsed !== null && near(parsed, s.amount as number)) agree++;
  }
  const falsePositives = without.filter((s) => detectPrices(s.text).length > 0).length;
  out(`price strings: ${strings.length} (${withPrice.length} with a price, ${without.length} without)`);
  out(line("amount and currency correct (detectPrices)", bothOk, withPrice.length));
  out(line("amount correct (detectPrices)", amountOk, withPrice.length));
  out(line("amount correct (parseNumberText)", agree, withPrice.length));
  out(line("strings without a price read as one (lower = better)", falsePositives, without.length));
  for (const m of misses) out(`    miss: ${m}`);
}

export const corpusBenchmark: TBenchmark = {
  name: "corpus",
  description:
    "page-understanding accuracy on the fixture corpus (offers, availability, hash/identity stability, price strings)",
  flags: [],
  run: runCorpusBench,
};
