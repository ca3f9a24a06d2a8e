import type { TReadBack } from "../types";
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
};

/**
 * A web read back (refreshes, replay, the page view): the structured document is hashed; JSON pointers read the JSON
 * body when the page served one (else the document), CSS extractors the page's answers or its HTML, patterns the
 * main text. Stored results may be partial (a sample, an old capture), so every part is optional here.
 */
export function readWebResult(input: { url?: string } | undefined, results: TWebResultLike | undefined): TReadBack {
  const r = results ?? {};
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
