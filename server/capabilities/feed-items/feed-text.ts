import { sanitizeText } from "@/server/lib/sanitize-text";
import { BLOCK_SEPARATOR, scanHtml } from "../web-scrape/scan-html";

/**
 * Feed text as plain, bounded text. Descriptions are HTML by custom (RSS) or by declaration (Atom type="html",
 * JSON Feed content_html); they are read with the page reader's scan (scan-html.ts: linear, iterative, scripts
 * and styles left out, blocks kept apart), so a summary reads as the page would — and, as on a page, a counter or a
 * relative time ("12 comments", "2 hours ago") is left out, so an entry's text does not change by itself.
 */

/** HTML beyond this is not read: a summary needs its first thousand characters, not a whole article. */
const MAX_HTML_CHARS = 50_000;
/** Plain text beyond this is not scanned. */
const MAX_PLAIN_CHARS = 20_000;

/** Whitespace collapsed, NUL and lone surrogates removed (stored text, docs/design.md §8). */
export function plainText(text: string | null | undefined): string {
  if (!text) return "";
  const head = text.length > MAX_PLAIN_CHARS ? text.slice(0, MAX_PLAIN_CHARS) : text;
  return sanitizeText(head.replaceAll(BLOCK_SEPARATOR, " ").replace(/\s+/g, " ").trim());
}

/** The visible text of an HTML fragment: tags gone, entities decoded, whitespace collapsed. */
export function htmlToText(html: string | null | undefined): string {
  if (!html) return "";
  // Text without markup or entities is already plain; most titles are.
  if (!/[<&]/.test(html)) return plainText(html);
  return plainText(scanHtml(html.length > MAX_HTML_CHARS ? cutHtml(html, MAX_HTML_CHARS) : html).text);
}

/** The first `max` characters, without a tag cut in half at the end (it would read as text). */
function cutHtml(html: string, max: number): string {
  const head = html.slice(0, max);
  const open = head.lastIndexOf("<");
  return open > head.lastIndexOf(">") ? head.slice(0, open) : head;
}

/** At most `max` characters, cut at a word when there is one near the end, with "…" when cut. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max); // one character is left for the ellipsis below
  const space = room.lastIndexOf(" ", max - 1);
  // A word longer than a fifth of the room (a URL, a hash) is cut where it is.
  const cut = space > max * 0.8 ? room.slice(0, space) : room.slice(0, max - 1);
  return `${dropLoneSurrogate(cut.trimEnd())}…`;
}

/** A cut between the halves of a surrogate pair leaves half an emoji, which cannot be stored. */
function dropLoneSurrogate(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}
