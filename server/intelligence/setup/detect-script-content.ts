import { looksLikeShell, type TStructuredDocument } from "../../capabilities";

/**
 * Does a plainly fetched page get its content from a script — even when it has plenty of other text? The
 * `render: auto` shell check (looks-like-shell.ts) only fires on near-empty pages; a pricing page with a long
 * description and a price a script writes in later passes it and would be drafted without a price. At draft
 * time the sample is read once, so the setup can afford a closer look: empty price containers, "loading…"
 * placeholders, or an app shell. Pure; the HTML is the capped sample HTML, and every pattern is linear.
 */

export type TScriptContent = { scriptFilled: boolean; reasons: string[] };

/** An element whose class or id says price/amount with no text, or only a placeholder, before it closes. */
const PRICE_CONTAINER =
  /<([a-z][a-z0-9-]{0,20})\b[^<>]{0,400}?\b(?:class|id)\s*=\s*["'][^"'<>]{0,200}?\b(?:price|amount|cost|preis|prix|precio|preco)[^"'<>]{0,200}["'][^<>]{0,400}>([^<]{0,40})<\/\1\s*>/gi;
/** What a script leaves in a container until it writes the value. */
const PLACEHOLDER =
  /^(?:|[-–—…·.]+|\.\.\.|loading\s*(?:…|\.{0,3})|laden\s*(?:…|\.{0,3})|chargement\s*(?:…|\.{0,3})|cargando\s*(?:…|\.{0,3})|n\/a|tbd|--)$/i;
/** A line of the visible text that is only a loading placeholder. */
const LOADING_LINE = /^\s*(?:loading|laden|chargement|cargando|wird geladen)\s*(?:…|\.{0,3})\s*$/i;
const MAX_SCANNED_CONTAINERS = 200;

export function detectScriptContent(input: { html: string; document: TStructuredDocument }): TScriptContent {
  const reasons: string[] = [];
  let empty = 0;
  let scanned = 0;
  for (const m of input.html.matchAll(PRICE_CONTAINER)) {
    if (++scanned > MAX_SCANNED_CONTAINERS) break;
    const text = decodeSpaces(m[2] ?? "").trim();
    if (PLACEHOLDER.test(text)) empty++;
  }
  if (empty > 0) reasons.push(`${empty} empty price element${empty === 1 ? "" : "s"} (filled in by script)`);
  const loading = input.document.mainText.split("\n").filter((l) => LOADING_LINE.test(l)).length;
  if (loading > 0) reasons.push(`${loading} “loading…” placeholder${loading === 1 ? "" : "s"}`);
  const shell = looksLikeShell({ kind: "html", html: input.html, document: input.document });
  if (shell.shell) reasons.push(`an app shell: ${shell.reasons.join(", ")}`);
  return { scriptFilled: reasons.length > 0, reasons };
}

const decodeSpaces = (s: string) =>
  s
    .replace(/&nbsp;|&#160;/gi, " ")
    .replace(/&hellip;/gi, "…")
    .replace(/&mdash;/gi, "—");

/**
 * What the setup says about such a page (docs/page-reading.md, "Pages that need a browser"): read in a browser for the
 * sample, or an offer of the browser read — and whether this server has a browser to offer.
 */
export function scriptContentNote(content: { rendered: boolean; failed?: string }, browserOn: boolean): string {
  if (content.rendered)
    return "The price on this page is filled in by script, so I read the sample in a browser (render: auto renders this page on every check).";
  const offer = "The price on this page is filled in by script; read it with a browser (render: always) to watch it";
  if (content.failed) return `${offer} — rendering the sample failed: ${content.failed}`;
  return browserOn
    ? `${offer} — choose it under “How the page is read” on the card.`
    : `${offer}. This server has no browser configured (set BROWSER_EXECUTABLE_PATH or BROWSER_WS_ENDPOINT).`;
}
