/**
 * What a body is, from its first bytes: the root element of an XML or HTML document, JSON, or other text. The
 * parser is chosen by the root alone — a page that merely mentions `<rss>` in its text is still a page.
 */

export type TSniff =
  | { kind: "empty" }
  | { kind: "xml"; root: string; htmlDoctype: boolean }
  | { kind: "json" }
  | { kind: "text" };

/** Comments, processing instructions and a doctype before the root are skipped up to this far. */
const MAX_PROLOG_CHARS = 100_000;

export function sniffFeed(text: string): TSniff {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const start = body.search(/\S/);
  if (start === -1) return { kind: "empty" };
  const first = body[start];
  if (first === "{" || first === "[") return { kind: "json" };
  if (first !== "<") return { kind: "text" };
  let at = start;
  let htmlDoctype = false;
  while (at < MAX_PROLOG_CHARS) {
    at = body.indexOf("<", at);
    if (at === -1) return { kind: "text" };
    if (body.startsWith("<?", at)) at = after(body, "?>", at);
    else if (body.startsWith("<!--", at)) at = after(body, "-->", at);
    else if (body.startsWith("<!", at)) {
      if (/^<!doctype\s+html\b/i.test(body.slice(at, at + 20))) htmlDoctype = true;
      // A doctype's internal subset ([…]) may hold ">" characters of its own.
      const close = body.indexOf(">", at);
      const subset = body.indexOf("[", at);
      at = subset !== -1 && subset < close ? after(body, ">", after(body, "]", subset)) : after(body, ">", at);
    } else {
      const name = /^<([A-Za-z_][\w.:-]{0,100})/.exec(body.slice(at, at + 110))?.[1];
      if (!name) return { kind: "text" };
      return { kind: "xml", root: name, htmlDoctype };
    }
    if (at === -1) return { kind: "text" };
  }
  return { kind: "text" };
}

/** The index just past the next `token` from `from`, or -1. */
function after(text: string, token: string, from: number): number {
  if (from === -1) return -1;
  const i = text.indexOf(token, from);
  return i === -1 ? -1 : i + token.length;
}

/** The element's name without its namespace prefix, lowercase (`rdf:RDF` → `rdf`, `atom:feed` → `feed`). */
export function localName(name: string): string {
  return name.slice(name.lastIndexOf(":") + 1).toLowerCase();
}
