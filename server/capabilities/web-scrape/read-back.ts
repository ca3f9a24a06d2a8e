import type { TListingItem } from "../../../contracts/definition/listing-plan";
import type { TReadBack, TSetMember } from "../types";
import type { TCssAnswer } from "./css-query";

const URL_RE = /\bhttps?:\/\/[^\s<>"'`]+/i;

/** The first http(s) address in a message; trailing punctuation that is not part of an address is dropped. */
export function findWebAddress(text: string): string | null {
  return URL_RE.exec(text)?.[0]?.replace(/[.,;:!?)\]}]+$/, "") ?? null;
}

/** What a web read leaves (web.scrape's output; web.pdf's is a subset), as stored — any part may be missing. */
type TWebResultLike = {
  document?: { canonicalUrl?: string | null; mainText?: string } & Record<string, unknown>;
  finalUrl?: string;
  html?: string;
  json?: unknown;
  css?: Record<string, TCssAnswer>;
  contentHash?: string;
  /** A listing page read as a set (input `listing`): its items merged over its pages. */
  listing?: { items?: TListingItem[] };
};

/**
 * A web read back (refreshes, replay, the page view): the structured document is hashed; JSON pointers read the JSON
 * body when the page served one (else the document), CSS extractors the page's answers or its HTML, patterns the
 * main text. Stored results may be partial (a sample, an old capture), so every part is optional here.
 */
export function readWebResult(input: { url?: string } | undefined, results: TWebResultLike | undefined): TReadBack {
  const r = results ?? {};
  if (r.listing) return readListingResult(input, r, Array.isArray(r.listing.items) ? r.listing.items : []);
  const document = r.document ?? r;
  const raw: TReadBack["raw"] = { json: r.json !== undefined ? r.json : document };
  if (r.html !== undefined) raw.html = r.html;
  if (r.css !== undefined) raw.css = r.css;
  if (typeof r.document?.mainText === "string") raw.text = r.document.mainText;
  return {
    document,
    raw,
    source: `web page ${r.finalUrl ?? input?.url ?? ""}`,
    ids: {
      canonicalUrl: r.document?.canonicalUrl ?? null,
      ...(typeof input?.url === "string" ? { url: input.url } : {}),
    },
    ...(r.contentHash !== undefined ? { contentHash: r.contentHash } : {}),
  };
}

/** A listing's items as set members: each item's key and exactly the values its plan read. */
export function listingMembers(items: readonly TListingItem[]): TSetMember[] {
  return items.map((item) => ({ key: item.key, values: { ...item.values } }));
}

/**
 * What a listing read hashes (docs/sets.md): its members sorted by key (code units, the same on every server), so the
 * hash is the set's, not the page's: a reorder, an ad or any other text on the page changes nothing.
 */
export function listingDocument(members: readonly TSetMember[]): { listing: TSetMember[] } {
  return { listing: [...members].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) };
}

/** A listing page read back as a set: `items` in page order for the members, the key-sorted set as the document. */
function readListingResult(
  input: { url?: string } | undefined,
  r: TWebResultLike,
  items: readonly TListingItem[],
): TReadBack {
  const members = listingMembers(items);
  const document = listingDocument(members);
  return {
    document,
    raw: { json: document },
    source: `web page ${r.finalUrl ?? input?.url ?? ""}`,
    ids: {
      canonicalUrl: r.document?.canonicalUrl ?? null,
      ...(typeof input?.url === "string" ? { url: input.url } : {}),
    },
    // web.scrape hashes this same document with the run's salt when it reads a listing (index.ts).
    ...(r.contentHash !== undefined ? { contentHash: r.contentHash } : {}),
    items: members,
  };
}
