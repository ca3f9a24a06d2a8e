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

export function feedHref(raw: string): TFeedHref | null {
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
