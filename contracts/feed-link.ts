/**
 * The one check for `Link` hrefs in feed cards, shared by spec validation (server) and the renderer (client),
 * so no validation library is needed to render. Accepted: an in-app path, or an absolute http(s) URL.
 * In-app paths are judged as URLs after the browser's own normalisation: backslashes count as slashes
 * (`/\evil.example` is `//evil.example`, another host), protocol-relative `//` is refused, and the result must
 * resolve to this app's origin. Whitespace and control characters (which browsers strip, e.g. `java\tscript:`)
 * are refused rather than guessed at.
 */
export type TFeedHref = { kind: "app"; href: string } | { kind: "external"; href: string };

const APP_ORIGIN = "http://app.invalid";
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f]/;

/**
 * An in-app path of plain segments ("/trackers/cm3…"): no dot segments, nothing a URL parser would
 * percent-encode, no query or fragment, so it is its own normalisation. Answered without building a URL
 * (the spec check asks for every card's link on every feed load).
 */
const PLAIN_APP_PATH = /^(?:\/[\w~-][\w.~-]*)+\/?$/;

/** `[\w~-]`, plus "." when `dot`, by char code. */
function isSegmentChar(c: number, dot: boolean): boolean {
  return (
    (c >= 97 && c <= 122) || // a-z
    (c >= 65 && c <= 90) || // A-Z
    (c >= 48 && c <= 57) || // 0-9
    c === 95 || // _
    c === 126 || // ~
    c === 45 || // -
    (dot && c === 46) // .
  );
}

/**
 * `PLAIN_APP_PATH.test(raw)` by one scan of char codes: such a path has no control characters, whitespace or
 * backslashes, so it is its own answer without the unsafe-character pattern, the backslash replacement and the
 * path pattern (~0.5 µs per link as three regular-expression passes; the feed checks every card's links on
 * every load, docs/design.md §6). tests/unit/feed-fast-path.test.ts compares it with the pattern.
 */
export function isPlainAppPath(raw: string): boolean {
  const n = raw.length;
  if (n === 0 || n > 2000 || raw.charCodeAt(0) !== 47) return false;
  let i = 0;
  while (i < n) {
    i++; // the "/" at i
    if (i === n) return i > 1; // a trailing slash after at least one segment
    if (!isSegmentChar(raw.charCodeAt(i), false)) return false;
    for (i++; i < n; i++) {
      const c = raw.charCodeAt(i);
      if (c === 47) break;
      if (!isSegmentChar(c, true)) return false;
    }
  }
  return true;
}

export function feedHref(raw: string): TFeedHref | null {
  if (isPlainAppPath(raw)) return { kind: "app", href: raw };
  if (raw.length === 0 || raw.length > 2000 || UNSAFE_CHARS.test(raw)) return null;
  const href = raw.replaceAll("\\", "/");
  if (PLAIN_APP_PATH.test(href)) return { kind: "app", href };
  if (href.startsWith("/")) {
    if (href.startsWith("//")) return null;
    let url: URL;
    try {
      url = new URL(href, `${APP_ORIGIN}/`);
    } catch {
      return null;
    }
    if (url.origin !== APP_ORIGIN) return null;
    return { kind: "app", href: `${url.pathname}${url.search}${url.hash}` };
  }
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null; // relative paths without a leading slash are ambiguous: refused
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password || !url.hostname) return null;
  return { kind: "external", href: url.href };
}
