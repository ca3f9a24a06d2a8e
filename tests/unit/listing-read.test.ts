import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { TListingItem, TListingPlan } from "@/contracts/definition/listing-plan";
import { detectListing, mergePages, readListing } from "@/server/capabilities/web-scrape/listing";

/**
 * Reading a listing with the plan locked at setup, as every refresh will (docs/design.md §3): items are identified by
 * what they are, never by their place, so a reordered page reads the same items, a changed page shows exactly what
 * changed, and the pages of a shifting paged listing merge without a duplicate or a gap.
 */

const page = (name: string) => readFileSync(new URL(`../fixtures/listings/${name}`, import.meta.url), "utf8");
const URL_OF = (name: string) => `https://shop.example/listings/${name}`;
const planOf = (name: string): TListingPlan => {
  const found = detectListing(page(name), URL_OF(name));
  if (!found) throw new Error(`${name}: no listing detected`);
  // The plan as stored with the tracker: plain JSON.
  return JSON.parse(JSON.stringify(found.plan)) as TListingPlan;
};
const read = (name: string, plan: TListingPlan) => readListing(page(name), URL_OF(name), plan);
const byKey = (items: TListingItem[]) => new Map(items.map((i) => [i.key, i.values]));

/** What a refresh would record: keys added, keys removed, and per kept key the fields that moved. */
function diff(before: TListingItem[], after: TListingItem[]) {
  const a = byKey(before);
  const b = byKey(after);
  const changed: Record<string, Record<string, [string | null, string | null]>> = {};
  for (const [key, values] of b) {
    const old = a.get(key);
    if (!old) continue;
    for (const [field, v] of Object.entries(values))
      if (old[field] !== v) changed[key] = { ...changed[key], [field]: [old[field] ?? null, v] };
  }
  return {
    added: [...b.keys()].filter((k) => !a.has(k)),
    removed: [...a.keys()].filter((k) => !b.has(k)),
    changed,
  };
}

const SHAPES = [
  {
    dir: "jsonld-itemlist",
    shape: "jsonld-itemlist",
    added: "https://shop.example/machines/bezzera-unica-pid",
    removed: "https://shop.example/machines/profitec-go",
    moved: "https://shop.example/machines/rancilio-silvia-v6",
    price: ["935 USD", "1049 USD"],
  },
  {
    dir: "microdata",
    shape: "microdata",
    added: "https://shop.example/grinders/fellow-opus",
    removed: "https://shop.example/grinders/df64-gen-2",
    moved: "https://shop.example/grinders/baratza-encore-esp",
    price: ["199.95 USD", "179.95 USD"],
  },
  {
    dir: "dom-cards",
    shape: "dom-cards",
    added: "https://shop.example/beans/rwanda-nyamasheke",
    removed: "https://shop.example/beans/kenya-nyeri-aa",
    moved: "https://shop.example/beans/colombia-huila",
    price: ["12.9 EUR", "13.5 EUR"],
  },
  { dir: "table", shape: "table", added: "WDT-01", removed: "TMP-585", moved: "GSK-58", price: ["4.9 EUR", "5.4 EUR"] },
] as const;

describe("reading a listing with its plan", () => {
  for (const s of SHAPES) {
    it(`${s.shape}: the reordered page reads the same items with the same values (keys are not positions)`, () => {
      const plan = planOf(`${s.dir}/base.html`);
      expect(plan.shape).toBe(s.shape);
      const base = read(`${s.dir}/base.html`, plan).items;
      const reordered = read(`${s.dir}/reordered.html`, plan).items;
      // The fixture really is in another order…
      expect(reordered.map((i) => i.key)).not.toEqual(base.map((i) => i.key));
      // …and every key still maps to exactly its own values.
      expect(byKey(reordered)).toEqual(byKey(base));
      expect(diff(base, reordered)).toEqual({ added: [], removed: [], changed: {} });
    });

    it(`${s.shape}: the changed page shows exactly the added item, the removed item and the one price that moved`, () => {
      const plan = planOf(`${s.dir}/base.html`);
      const base = read(`${s.dir}/base.html`, plan).items;
      const changed = read(`${s.dir}/changed.html`, plan).items;
      expect(diff(base, changed)).toEqual({
        added: [s.added],
        removed: [s.removed],
        changed: { [s.moved]: { price: [...s.price] } },
      });
      expect(changed).toHaveLength(base.length);
      // The added item is read whole, like the others.
      const added = byKey(changed).get(s.added);
      expect(added?.name).toBeTruthy();
      expect(added?.price).toMatch(/^\d+(\.\d+)? (USD|EUR)$/);
    });
  }

  it("is deterministic: the same page and plan read the same, twice", () => {
    for (const s of SHAPES) {
      const plan = planOf(`${s.dir}/base.html`);
      expect(read(`${s.dir}/changed.html`, plan)).toEqual(read(`${s.dir}/changed.html`, plan));
    }
  });

  it("follows a paged listing by its next links and merges the pages into every item once", () => {
    const plan = planOf("paged/page-1.html");
    const pages: TListingItem[][] = [];
    let url: string | null = URL_OF("paged/page-1.html");
    const visited: string[] = [];
    while (url && pages.length < plan.maxPages) {
      visited.push(url);
      const name = url.replace("https://shop.example/listings/", "");
      const got = readListing(page(name), url, plan);
      pages.push(got.items);
      url = got.nextPageUrl;
    }
    expect(visited).toEqual([1, 2, 3].map((n) => `https://shop.example/listings/paged/page-${n}.html`));
    expect(pages.map((p) => p.length)).toEqual([6, 6, 4]);
    const all = mergePages(pages);
    expect(all.map((i) => i.key)).toEqual(
      Array.from({ length: 16 }, (_, i) => `https://shop.example/books/book-${String(i + 1).padStart(2, "0")}`),
    );
    expect(all[15]?.values).toEqual({
      name: "Book 16: The Curious Barista's Guide",
      price: "30 GBP",
      url: "https://shop.example/books/book-16",
    });
  });

  it("merges a listing that shifted by one between page 1 and page 2 without a duplicate or a lost item", () => {
    const plan = planOf("paged/page-1.html");
    const first = read("paged/page-1.html", plan).items;
    // A new book was added at the top before page 2 was fetched: page 2 now starts with page 1's last book.
    const second = read("paged/shifted/page-2.html", plan);
    const third = read("paged/shifted/page-3.html", plan);
    expect(second.items[0]?.key).toBe(first.at(-1)?.key);
    expect(second.nextPageUrl).toBe("https://shop.example/listings/paged/shifted/page-3.html");
    const merged = mergePages([first, second.items, third.items]);
    const keys = merged.map((i) => i.key);
    expect(new Set(keys).size).toBe(keys.length);
    const unshifted = mergePages([1, 2, 3].map((n) => read(`paged/page-${n}.html`, plan).items));
    expect(byKey(merged)).toEqual(byKey(unshifted));
    // The shifted listing read whole has the new book as well.
    const shifted = mergePages([1, 2, 3].map((n) => read(`paged/shifted/page-${n}.html`, plan).items));
    expect(shifted).toHaveLength(17);
    expect(diff(unshifted, shifted).added).toEqual(["https://shop.example/books/book-00"]);
  });

  it("mergePages keeps the first occurrence of a key", () => {
    const a = { key: "k1", values: { price: "1 USD" } };
    const b = { key: "k2", values: { price: "2 USD" } };
    const a2 = { key: "k1", values: { price: "9 USD" } };
    expect(mergePages([[a, b], [a2], []])).toEqual([a, b]);
    expect(mergePages([])).toEqual([]);
  });

  it("reads nothing, without failing, where the plan's items are gone (a redesign), and caps what it reads", () => {
    const plan = planOf("dom-cards/base.html");
    expect(readListing(page("article.html"), URL_OF("article.html"), plan)).toEqual({ items: [], nextPageUrl: null });
    const jsonPlan = planOf("jsonld-itemlist/base.html");
    expect(read("jsonld-itemlist/base.html", jsonPlan).items).toHaveLength(8);
    expect(readListing(page("jsonld-itemlist/base.html"), URL_OF("x"), jsonPlan, { maxItems: 3 }).items).toHaveLength(
      3,
    );
  });

  it("a next link to another site, or back to the same page, is not a next page", () => {
    const plan = planOf("paged/page-1.html");
    const html = page("paged/page-1.html");
    const elsewhere = html.replaceAll('href="/listings/paged/page-2.html"', 'href="https://evil.example/page-2.html"');
    expect(readListing(elsewhere, URL_OF("paged/page-1.html"), plan).nextPageUrl).toBeNull();
    const self = html.replaceAll('href="/listings/paged/page-2.html"', 'href="/listings/paged/page-1.html#top"');
    expect(readListing(self, URL_OF("paged/page-1.html"), plan).nextPageUrl).toBeNull();
  });

  it("items without their key are skipped, and a repeated key is one item", () => {
    const plan = planOf("table/base.html");
    const html = page("table/base.html")
      .replace('<td class="sku">SCR-58</td>', '<td class="sku"> </td>')
      .replace('<td class="sku">DSC-250</td>', '<td class="sku">GSK-58</td>');
    const items = readListing(html, URL_OF("table/base.html"), plan).items;
    expect(items.map((i) => i.key)).toEqual(["GSK-58", "BSK-18", "TMP-585", "PFN-58"]);
    expect(items[0]?.values.name).toBe("Group gasket 58 mm");
  });
});
