import type { TListingField, TListingKey, TListingPlan } from "../../../../contracts/definition/listing-plan";
import { findPrices } from "../../../lib/parse-price";
import { selectElements } from "../css-query";
import type { THtmlElement } from "../html-tree";
import { chooseKey, itemAttributeKeys, MAX_FIELDS, MIN_ITEMS, type TCandidate, uniqueFields } from "./detect-common";
import { childElements, descendants, insideChrome, stableClasses, stableId, visibleText } from "./listing-dom";
import type { TListingPage } from "./listing-page";
import { fieldNameOf } from "./listing-values";

/**
 * A table whose rows are items: at least three rows of the same width with a name cell and a price or number cell.
 * Columns are read by their place in the row (`tr > :nth-child(2)`), as the drafter anchors a price in a table row
 * (docs/intelligence.md, limits: reordering the columns moves it); rows are identified by their link, SKU or name,
 * never by their place.
 */

const COLUMN_SHARE = 0.8;
const NAME_HEADER =
  /^(?:name|product|products|title|item|items|description|model|bezeichnung|produkt|artikel|nom|produit|nombre|producto|prodotto|naam)\b/i;
const SKU_HEADER =
  /^(?:sku|art(?:ikel)?\.?[\s-]*nr\.?|artikelnummer|item\s*(?:no\.?|#|number|code)|part\s*(?:no\.?|#|number)|model\s*(?:no\.?|#|number)|code|ref(?:erence)?\.?|réf\.?|référence|mpn|ean|gtin|upc)\b/i;
const STOCK_HEADER =
  /^(?:stock|availability|in stock|available|lager|verfügbar|verfügbarkeit|disponibilit|existencias)/i;
const CODE = /^[A-Za-z0-9][A-Za-z0-9._/-]{1,31}$/;

const hasLetters = (s: string) => /\p{L}/u.test(s);
const cellsOf = (row: THtmlElement) => childElements(row).filter((c) => c.name === "td" || c.name === "th");

function rowsOf(table: THtmlElement): THtmlElement[] {
  const out: THtmlElement[] = [];
  for (const c of childElements(table)) {
    if (c.name === "tr") out.push(c);
    else if (c.name === "thead" || c.name === "tbody" || c.name === "tfoot")
      for (const r of childElements(c)) if (r.name === "tr") out.push(r);
  }
  return out;
}

/** A selector matching only this table: its id, its classes, or `table` when it is the page's only one. */
function tableSelectorOf(page: TListingPage, table: THtmlElement): string | null {
  const id = stableId(table);
  const classes = stableClasses(table).slice(0, 2);
  const tries = [
    ...(id ? [`#${id}`] : []),
    ...(classes.length ? [`table${classes.map((c) => `.${c}`).join("")}`] : []),
  ];
  tries.push("table");
  for (const sel of tries) {
    const got = selectElements(page.tree, sel, 2);
    if (got?.length === 1 && got[0] === table) return sel;
  }
  return null;
}

function candidateFor(page: TListingPage, table: THtmlElement, max: number): TCandidate | null {
  const rows = rowsOf(table);
  const data = rows.filter((r) => cellsOf(r).some((c) => c.name === "td") && cellsOf(r).length >= 2);
  if (data.length < MIN_ITEMS) return null;
  // The width most rows have; rows narrower than it (group headings with colspan) are not items.
  const widths = new Map<number, number>();
  for (const r of data) widths.set(cellsOf(r).length, (widths.get(cellsOf(r).length) ?? 0) + 1);
  const [width, count] = [...widths.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0] as [number, number];
  const items = data.filter((r) => cellsOf(r).length >= width);
  if (count < MIN_ITEMS || count < data.length * COLUMN_SHARE) return null;

  const headerRow = rows.find((r) => !data.includes(r) && cellsOf(r).length >= width);
  const headers = headerRow ? cellsOf(headerRow).map((c) => visibleText(c, { maxChars: 80 })) : [];
  const columns = Array.from({ length: width }, (_, k) => {
    const cells = items.map((r) => cellsOf(r)[k] as THtmlElement);
    const texts = cells.map((c) => visibleText(c, { skipStruck: true, maxChars: 300 }));
    const share = (test: (t: string, i: number) => boolean) => texts.filter(test).length / texts.length;
    return {
      k,
      header: headers[k] ?? "",
      texts,
      price: share((t) => findPrices(t, { limit: 1 }).length > 0),
      number: share((t) => !hasLetters(t) && /\d/.test(t)),
      letters: share((t) => hasLetters(t)),
      unique: new Set(texts).size / texts.length,
      link: share((_, i) => descendants(cells[i] as THtmlElement, 20).some((d) => d.name === "a")),
      code: share((t) => CODE.test(t) && /\d/.test(t)),
    };
  });
  const isMoney = (c: (typeof columns)[number]) => c.price >= COLUMN_SHARE;
  const isNumber = (c: (typeof columns)[number]) => !isMoney(c) && c.number >= COLUMN_SHARE;
  const skuCol =
    columns.find((c) => SKU_HEADER.test(c.header) && c.unique === 1) ??
    columns.find((c) => !c.header && c.code === 1 && c.unique === 1 && !isNumber(c));
  const nameCol =
    columns.find((c) => c !== skuCol && NAME_HEADER.test(c.header) && c.letters >= COLUMN_SHARE) ??
    columns.find(
      (c) => c !== skuCol && !isMoney(c) && c.letters >= COLUMN_SHARE && c.unique >= COLUMN_SHARE && c.code < 0.5,
    );
  if (!nameCol || !columns.some((c) => isMoney(c) || isNumber(c))) return null;

  const tableSel = tableSelectorOf(page, table);
  if (!tableSel) return null;
  const itemSelector = `${tableSel} tr:has(> td:nth-child(${width}))`;
  const got = selectElements(page.tree, itemSelector, items.length + 1);
  if (got?.length !== items.length) return null;

  const cell = (k: number) => `tr > :nth-child(${k + 1})`;
  const fields: TListingField[] = [{ name: "name", type: "text", selector: cell(nameCol.k) }];
  if (nameCol.link >= COLUMN_SHARE)
    fields.push({ name: "url", type: "url", selector: `${cell(nameCol.k)} a[href]`, attribute: "href" });
  if (skuCol) fields.push({ name: "sku", type: "text", selector: cell(skuCol.k) });
  let firstMoney = true;
  for (const c of columns) {
    if (c === nameCol || c === skuCol) continue;
    const named = fieldNameOf(c.header) ?? `column_${c.k + 1}`;
    if (isMoney(c)) {
      const currency = c.texts.map((t) => findPrices(t, { limit: 1 })[0]?.currency).find((x) => x) ?? null;
      fields.push({ name: firstMoney ? "price" : named, type: "money", selector: cell(c.k), currency });
      firstMoney = false;
    } else if (isNumber(c)) fields.push({ name: named, type: "number", selector: cell(c.k) });
    else if (STOCK_HEADER.test(c.header))
      fields.push({ name: "availability", type: "availability", selector: cell(c.k) });
    else if (c.letters >= 0.5 && c.header) fields.push({ name: named, type: "text", selector: cell(c.k) });
  }

  const keys: TListingKey[] = [];
  const url = fields.find((f) => f.name === "url");
  if (url) keys.push({ kind: "url", selector: url.selector ?? null, attribute: "href" });
  if (skuCol) keys.push({ kind: "sku", selector: cell(skuCol.k) });
  keys.push(...itemAttributeKeys(items[0] as THtmlElement).filter((k) => k.kind !== "url"));
  keys.push({ kind: "name", selector: cell(nameCol.k) });

  const base: Omit<TListingPlan, "key"> = {
    shape: "table",
    itemSelector,
    fields: uniqueFields(fields).slice(0, MAX_FIELDS),
    nextPage: null,
    maxPages: 1,
  };
  const key = chooseKey(page, base, keys, max);
  if (!key) return null;
  return { plan: { ...base, key }, what: (n) => `${n} row${n === 1 ? "" : "s"} of the table ${tableSel}` };
}

export function tableCandidates(page: TListingPage, max: number): TCandidate[] {
  const out: TCandidate[] = [];
  for (const el of page.tree.elements) {
    if (el.name !== "table" || insideChrome(el)) continue;
    const c = candidateFor(page, el, max);
    if (c) out.push(c);
    if (out.length >= 8) break;
  }
  return out;
}
