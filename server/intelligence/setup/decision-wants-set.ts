/**
 * Is the person's decision about a set — who or what is in a list, what came and went, which of many moved — rather
 * than about one thing (docs/sets.md: "is anyone new competing with us?", "which of the rival's 40 products got
 * cheaper?")? Rules mode then looks for a listing on the page it binds (bind-and-sample.ts). Pure and deliberately
 * plain: words, not a model.
 */

/** Nouns that name many things of one kind; the value is what one member and many are called in the reply. */
const COLLECTIONS: Record<string, { one: string; many: string }> = {
  products: { one: "product", many: "products" },
  items: { one: "item", many: "items" },
  skus: { one: "SKU", many: "SKUs" },
  listings: { one: "listing", many: "listings" },
  jobs: { one: "job", many: "jobs" },
  openings: { one: "opening", many: "openings" },
  vacancies: { one: "vacancy", many: "vacancies" },
  postings: { one: "posting", many: "postings" },
  stores: { one: "store", many: "stores" },
  shops: { one: "shop", many: "shops" },
  locations: { one: "location", many: "locations" },
  branches: { one: "branch", many: "branches" },
  competitors: { one: "competitor", many: "competitors" },
  rivals: { one: "rival", many: "rivals" },
  models: { one: "model", many: "models" },
  range: { one: "product", many: "products" },
  catalogue: { one: "product", many: "products" },
  catalog: { one: "product", many: "products" },
  lineup: { one: "product", many: "products" },
  assortment: { one: "product", many: "products" },
};

/** Words that ask what was added or removed, or which of several: about a set when a plural follows them. */
const MEMBERSHIP = new Set([
  ..."add adds added adding drop drops dropped dropping remove removes removed removing".split(" "),
  ..."discontinue discontinues discontinued launch launches launched new any which list lists listed".split(" "),
]);

/** Plurals that are parts of one thing, not members of a set ("any changes to the Pro plan?", "did prices drop?"). */
const NOT_MEMBERS = new Set(
  "changes updates differences details terms conditions prices fees costs rates discounts plans tiers hours news".split(
    " ",
  ),
);
/** Words that end like a plural and are none. */
const NOT_NOUNS = new Set("always perhaps sometimes does towards afterwards whereas besides".split(" "));

/** How far after a membership word its plural may stand ("which of the rival's shops", "any new hires"). */
const PLURAL_WITHIN = 4;

function words(text: string): string[] {
  // A possessive ("Acme's", "rival’s") is a name, not a plural: it is dropped with its apostrophe.
  return (text.toLowerCase().match(/[a-z][a-z'’-]*/g) ?? []).map((w) => w.replace(/['’]s?$/, "")).filter(Boolean);
}

const isPlural = (word: string) =>
  word.length >= 4 &&
  /s$/.test(word) &&
  !/(ss|us|is|ous)$/.test(word) &&
  !NOT_MEMBERS.has(word) &&
  !NOT_NOUNS.has(word);

/**
 * The collection the decision names ("products", "job postings" → postings), or the plural a membership word asks
 * about ("which plans"… not: plans are parts of one pricing page), or null.
 */
function setWord(text: string): string | null {
  const all = words(text);
  const named = all.find((w) => w.replace(/-/g, "") in COLLECTIONS);
  if (named) return named.replace(/-/g, "");
  for (let i = 0; i < all.length; i++) {
    if (!MEMBERSHIP.has(all[i] as string)) continue;
    const plural = all.slice(i + 1, i + 1 + PLURAL_WITHIN).find(isPlural);
    if (plural) return plural;
  }
  return null;
}

/**
 * True when the decision is about a set: it names a collection ("products", "job postings", "the range") or asks what
 * was added, dropped or new among things ("did they add any hires?"). A single named plan or product ("Is Acme
 * undercutting us on the Pro plan?", "will the price drop below $40?") is not.
 */
export function decisionWantsSet(decision: string): boolean {
  return setWord(decision) !== null;
}

/** What the decision calls one member and many ("product"/"products"), or null when it names no collection. */
export function setMemberNoun(decision: string): { one: string; many: string } | null {
  const word = setWord(decision);
  if (!word) return null;
  return (
    COLLECTIONS[word] ?? {
      one: word
        .replace(/ies$/, "y")
        .replace(/(ch|sh|x)es$/, "$1")
        .replace(/s$/, ""),
      many: word,
    }
  );
}

const ABOUT_PRICES =
  /\b(prices?|priced|pricing|cheaper|cheapest|costs?|discount\w*|undercut\w*|markdown\w*|on sale)\b|[$€£]/i;

/** The decision is about prices ("which got cheaper?", "price cuts"): a set's main price gets a drop rule. */
export function decisionAboutPrices(decision: string): boolean {
  return ABOUT_PRICES.test(decision);
}
