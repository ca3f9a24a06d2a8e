import type { TStructuredDocument } from "./format-structured-document";

/**
 * web.scrape `render: "auto"`: does a fetched page look like an empty app shell that only JavaScript fills
 * (docs/page-reading.md, "Pages that need a browser")? Pure and cheap — it reads the document the fetch built anyway plus a few patterns of the raw
 * HTML, so the plain-page hot path pays nothing for it (no browser is touched unless this says yes).
 *
 * A shell has little readable text AND something that says "an app renders here": an app root element
 * (#root, #__next, #app, #__nuxt, #___gatsby…), a <noscript> asking for JavaScript, or mostly scripts.
 * Little text alone is not enough (a terse plain page stays a plain page), and a page with real content is
 * never a shell whatever its markup (Next.js pages served with their HTML have #__next and text).
 */

export type TShellVerdict = { shell: boolean; reasons: string[] };

/** Readable characters under which a page counts as having "little text". */
export const SHELL_TEXT_CHARS = 200;

const APP_ROOT =
  /<(?:div|main|section|body|app-root)\b[^>]*\bid\s*=\s*["']?(root|__next|app|__nuxt|___gatsby|svelte|ember-application|q-app|react-root|application)["'\s>]/i;
const NOSCRIPT_WARNING =
  /<noscript\b[^>]*>[\s\S]{0,600}?\b(enable|turn on|activate|requires?|need)\b[\s\S]{0,60}?javascript/i;
const SCRIPT_TAG = /<script\b/gi;

export function looksLikeShell(input: {
  kind: "html" | "json" | "text";
  html: string;
  document: TStructuredDocument;
}): TShellVerdict {
  if (input.kind !== "html") return { shell: false, reasons: [] };
  const doc = input.document;
  // Content a fetch can already see: prices, offers or structured data make it a plain page.
  if (doc.prices.length > 0 || doc.offers.length > 0) return { shell: false, reasons: [] };
  const textChars = visibleChars(doc.mainText, SHELL_TEXT_CHARS);
  if (textChars >= SHELL_TEXT_CHARS) return { shell: false, reasons: [] };
  const reasons: string[] = [];
  const root = APP_ROOT.exec(input.html);
  if (root) reasons.push(`an app root element (#${root[1]})`);
  if (NOSCRIPT_WARNING.test(input.html)) reasons.push("a noscript warning asking for JavaScript");
  const scripts = input.html.match(SCRIPT_TAG)?.length ?? 0;
  if (scripts > 0 && textChars < 40) reasons.push(`${scripts} script(s) and almost no text`);
  if (reasons.length === 0) return { shell: false, reasons: [] };
  return { shell: true, reasons: [`only ${textChars} characters of text`, ...reasons] };
}

const WHITESPACE = /\s/;

/**
 * Characters of `text` that are not whitespace (as `\s` counts it), counted up to `limit`: a page with real content
 * stops the count early, and nothing is copied (this runs on every fetched page).
 */
export function visibleChars(text: string, limit: number): number {
  let count = 0;
  for (let i = 0; i < text.length && count < limit; i++) {
    const c = text.charCodeAt(i);
    // ASCII fast path: space, \t \n \v \f \r; anything else non-ASCII asks the pattern.
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    if (c < 128 || !WHITESPACE.test(text[i] as string)) count++;
  }
  return count;
}
