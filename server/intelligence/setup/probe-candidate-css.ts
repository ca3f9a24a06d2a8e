import type { TCssQuery } from "../../capabilities";
import { cssQueryKey } from "../../capabilities";
import { findPrices } from "../../lib/parse-price";
import { readsAs } from "./price-anchors";
import { CTA_LINE, cssCandidate, stripCta, type TPriceCandidate } from "./price-candidates";
import { IDENT, OLD_CLASS, PRICE_ELEMENTS, type TCssOracle } from "./probe-price-css";

/**
 * Prices the visible text does not show, found in the page's HTML (asked in the page worker): the
 * price elements inside each plan card — a card being the parent of a heading or a button that names
 * it, so a hidden annual price under "Business" is read as Business's — and a variant `<select>`'s
 * options with their prices. Each is anchored by the card's name or the option's value, checked to
 * read exactly that price on the sample (docs/intelligence.md, "decision-aware drafting").
 */

const MAX_NAMES = 12;
const MAX_PER_CARD = 4;
const NAME_TAGS = "h2, h3, h4, h5, h6, a, button";
const SAFE_VALUE = /^[\w.-]{1,60}$/u;
const PERIOD = /(annual|annually|yearly|year|yr|monthly|month|mo)\b/i;

const q = (selector: string, attribute?: string): TCssQuery => ({
  selector,
  all: true,
  ...(attribute ? { attribute } : {}),
});
const cssString = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
const collapse = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim();
const singlePrice = (text: string) => text.length <= 40 && findPrices(text, { limit: 3 }).length === 1;

export async function probeCandidateCss(
  ask: TCssOracle,
  input: { names: readonly string[]; shownAmounts: ReadonlySet<number>; currency: string | null },
): Promise<TPriceCandidate[]> {
  // The names in the HTML too: a card the visible text leaves out (or hides) is still named by its heading.
  const headingQuery = q("h2, h3, h4, h5, h6");
  const buttonQuery = q("a, button");
  const a0 = await ask([headingQuery, buttonQuery]);
  const listed = (query: TCssQuery) => {
    const a = a0[cssQueryKey(query)];
    return a?.ok ? a.values.map(collapse) : [];
  };
  const inHtml = [...listed(headingQuery), ...listed(buttonQuery).filter((b) => b.length <= 40 && CTA_LINE.test(b))];
  const all = [...input.names, ...inHtml].map(collapse);
  const names = [...new Set(all.filter((n) => n && n.length <= 40 && !/"|\n/.test(n)))].slice(0, MAX_NAMES);
  const scopes = names.map((n) => ({ name: n, scope: `:has(> :is(${NAME_TAGS}):contains(${cssString(n)}))` }));
  const round1: TCssQuery[] = [
    ...scopes.flatMap(({ scope }) => {
      const sel = `${scope} :is(${PRICE_ELEMENTS})`;
      return [q(sel), q(sel, "class")];
    }),
    q("option"),
    q("option", "value"),
  ];
  const a1 = await ask(round1);
  const values = (query: TCssQuery) => {
    const a = a1[cssQueryKey(query)];
    return a?.ok ? a.values : [];
  };
  type TTry = {
    selector: string;
    text: string;
    label: string;
    context: TPriceCandidate["context"];
    where: string;
    shown: boolean;
  };
  const tries: TTry[] = [];
  for (const { name, scope } of scopes) {
    const sel = `${scope} :is(${PRICE_ELEMENTS})`;
    const texts = values(q(sel));
    const classes = values(q(sel, "class"));
    texts.slice(0, MAX_PER_CARD * 3).forEach((raw, i) => {
      const text = collapse(raw);
      if (!singlePrice(text)) return;
      const tokens = collapse(classes[i] ?? null)
        .split(" ")
        .filter((t) => IDENT.test(t) && !OLD_CLASS.test(t));
      if (tokens.length === 0 || OLD_CLASS.test(classes[i] ?? "")) return;
      const label = stripCta(name) || name;
      const period = PERIOD.exec(tokens.join(" "))?.[1]?.toLowerCase();
      const amount = findPrices(text, { limit: 1 })[0]?.amount;
      tries.push({
        selector: `${scope} ${tokens.map((t) => `.${t}`).join("")}`,
        text,
        label: period ? `${label} · ${period}` : label,
        context: [
          { words: name, weight: 3 },
          { words: tokens.join(" ").replace(/[-_]/g, " "), weight: 3 },
        ],
        where: `the price (${tokens.map((t) => `.${t}`).join("")}) in the card named “${name}”`,
        shown: amount !== undefined && input.shownAmounts.has(amount),
      });
    });
  }
  const optionTexts = values(q("option"));
  const optionValues = values(q("option", "value"));
  optionTexts.slice(0, 24).forEach((raw, i) => {
    const text = collapse(raw);
    const value = optionValues[i];
    if (!text || findPrices(text, { limit: 3 }).length !== 1 || !value || !SAFE_VALUE.test(value)) return;
    const price = findPrices(text, { limit: 1 })[0];
    const label = price
      ? collapse(`${text.slice(0, price.start)} ${text.slice(price.end)}`).replace(/^[-–—:·|\s]+|[-–—:·|\s]+$/g, "")
      : text;
    tries.push({
      selector: `option[value=${cssString(value)}]`,
      text,
      label,
      context: [{ words: label, weight: 4 }],
      where: `the option “${label}” of the page's selector`,
      shown: false,
    });
  });
  if (tries.length === 0) return [];
  // Checked on the sample: the selector matches one element and it reads the price.
  const a2 = await ask(tries.map((t) => q(t.selector)));
  const out: TPriceCandidate[] = [];
  for (const t of tries) {
    const a = a2[cssQueryKey(q(t.selector))];
    if (!a?.ok || a.values.length !== 1) continue;
    const c = cssCandidate({ ...t, currency: input.currency });
    if (c && readsAs(a.values[0], c)) out.push(c);
  }
  return out;
}
