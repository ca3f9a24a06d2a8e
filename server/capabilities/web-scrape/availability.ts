import { z } from "zod";

/** schema.org ItemAvailability values (without the URL prefix). */
export const AVAILABILITY_VALUES = [
  "InStock",
  "OutOfStock",
  "SoldOut",
  "PreOrder",
  "PreSale",
  "BackOrder",
  "LimitedAvailability",
  "Discontinued",
  "InStoreOnly",
  "OnlineOnly",
  "MadeToOrder",
  "Reserved",
] as const;
export const ZAvailabilitySchema = z.enum(AVAILABILITY_VALUES);
export type TAvailability = z.infer<typeof ZAvailabilitySchema>;

const squash = (s: string) => s.toLowerCase().replace(/[\s_\-.]+/g, "");

const BY_SQUASHED = new Map<string, TAvailability>(AVAILABILITY_VALUES.map((v) => [squash(v), v]));
// Plain words used by OpenGraph (`product:availability`), feeds and shop systems.
for (const [word, value] of [
  ["in stock", "InStock"],
  ["available", "InStock"],
  ["available for order", "BackOrder"],
  ["on backorder", "BackOrder"],
  ["out of stock", "OutOfStock"],
  ["oos", "OutOfStock"],
  ["unavailable", "OutOfStock"],
  ["not available", "OutOfStock"],
  ["pending", "PreOrder"],
  ["preorder", "PreOrder"],
  ["limited", "LimitedAvailability"],
  ["limited stock", "LimitedAvailability"],
  ["low stock", "LimitedAvailability"],
  ["sold out", "SoldOut"],
  ["discontinued", "Discontinued"],
] as const) {
  BY_SQUASHED.set(squash(word), value);
}

/**
 * Normalises an availability value from structured data: schema.org URLs (any scheme/host case,
 * `schema:` prefix), bare names in any case, and the plain words OpenGraph and shop feeds use.
 */
export function normaliseAvailability(raw: unknown): TAvailability | null {
  if (typeof raw !== "string") return null;
  let v = raw.trim();
  if (!v) return null;
  const slash = Math.max(v.lastIndexOf("/"), v.lastIndexOf(":"), v.lastIndexOf("#"));
  if (slash >= 0 && /schema\.org|^schema:/i.test(v)) v = v.slice(slash + 1);
  return BY_SQUASHED.get(squash(v)) ?? null;
}

/**
 * Visible stock phrases, when the page has no structured availability. Longer phrases are tried first
 * at the same position, and the leftmost phrase in the text wins, so "nicht auf Lager" is not read as
 * "auf Lager" and "no disponible" not as "disponible". Lowercase; matched on word boundaries.
 */
const PHRASES: Record<TAvailability, string[]> = {
  OutOfStock: [
    // en
    "out of stock",
    "currently unavailable",
    "temporarily unavailable",
    "not in stock",
    "notify me when available",
    "notify me when back in stock",
    "email me when available",
    "email me when back in stock",
    // de
    "nicht auf lager",
    "nicht vorrätig",
    "nicht lieferbar",
    "derzeit nicht verfügbar",
    "nicht verfügbar",
    "vergriffen",
    // fr
    "rupture de stock",
    "en rupture",
    "épuisé",
    "épuisée",
    "indisponible",
    "momentanément indisponible",
    // es
    "sin stock",
    "fuera de stock",
    "sin existencias",
    "no disponible",
    "agotado por el momento",
    // it
    "non disponibile",
    "fuori stock",
    "non disponibile al momento",
    // nl
    "niet op voorraad",
    "niet leverbaar",
    "niet beschikbaar",
    // pt
    "sem estoque",
    "fora de estoque",
    "sem stock",
    "indisponível",
    // pl
    "brak w magazynie",
    "brak towaru",
    "niedostępny",
    "produkt niedostępny",
    "chwilowo niedostępny",
    // sv, da, no, fi
    "slut i lager",
    "ej i lager",
    "inte i lager",
    "tillfälligt slut",
    "ikke på lager",
    "ei varastossa",
    // cs, tr, ru, ja
    "není skladem",
    "stokta yok",
    "нет в наличии",
    "在庫切れ",
    "在庫なし",
    // "sold out" words: for visible text, out of stock is out of stock
    "sold out",
    "ausverkauft",
    "agotado",
    "agotada",
    "esaurito",
    "esaurita",
    "uitverkocht",
    "esgotado",
    "esgotada",
    "wyprzedane",
    "wyprzedany",
    "slutsåld",
    "slutsålt",
    "udsolgt",
    "utsolgt",
    "loppuunmyyty",
    "vyprodáno",
    "tükendi",
    "распродано",
    "売り切れ",
  ],
  SoldOut: [],
  PreOrder: [
    "pre-order",
    "preorder",
    "vorbestellen",
    "vorbestellbar",
    "précommande",
    "preventa",
    "preordina",
    "pré-venda",
  ],
  BackOrder: ["backorder", "back-order", "on back order", "nachbestellt"],
  LimitedAvailability: [
    "low stock",
    "only a few left",
    "few left",
    "limited stock",
    "nur noch wenige",
    "últimas unidades",
  ],
  InStock: [
    // en
    "in stock",
    "back in stock",
    // de
    "auf lager",
    "vorrätig",
    "sofort lieferbar",
    // fr, es
    "en stock",
    // es, it
    "en existencia",
    "disponibilità immediata",
    "in magazzino",
    // nl
    "op voorraad",
    // pt
    "em estoque",
    "em stock",
    // pl
    "w magazynie",
    "na stanie",
    // sv, da, no, fi
    "i lager",
    "finns i lager",
    "på lager",
    "varastossa",
    // cs, tr, ru, ja
    "skladem",
    "stokta",
    "в наличии",
    "在庫あり",
  ],
  PreSale: [],
  Discontinued: ["discontinued", "no longer available", "nicht mehr erhältlich", "n'est plus disponible"],
  InStoreOnly: ["in store only", "nur im laden"],
  OnlineOnly: ["online only"],
  MadeToOrder: ["made to order"],
  Reserved: [],
};

const PHRASE_VALUE = new Map<string, TAvailability>();
for (const [value, phrases] of Object.entries(PHRASES) as [TAvailability, string[]][])
  for (const p of phrases) if (!PHRASE_VALUE.has(p)) PHRASE_VALUE.set(p, value);

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// A plain alternation of literals (no nested quantifiers): linear per start position.
const PHRASE_RE = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[...PHRASE_VALUE.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegex)
    .join("|")})(?![\\p{L}\\p{N}])`,
  "u",
);
// Japanese has no word spaces: its phrases are matched anywhere.
const CJK_RE = /(在庫切れ|在庫なし|売り切れ|在庫あり)/u;

/** Only the start of the text is read: stock status sits near the product, related items come later. */
const MAX_PHRASE_SCAN = 20_000;

export type TAvailabilityPhrase = { value: TAvailability; phrase: string };

/** The first availability phrase in the visible text, or null. */
export function findAvailabilityPhrase(text: string): TAvailabilityPhrase | null {
  const head = text.slice(0, MAX_PHRASE_SCAN).toLowerCase();
  const m = PHRASE_RE.exec(head);
  const cjk = CJK_RE.exec(head);
  const hit = m && cjk ? (m.index <= cjk.index ? m : cjk) : (m ?? cjk);
  if (!hit) return null;
  const phrase = hit[0];
  const value = PHRASE_VALUE.get(phrase);
  return value ? { value, phrase } : null;
}
