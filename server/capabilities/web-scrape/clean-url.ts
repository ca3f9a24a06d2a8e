/**
 * Canonical form of a URL for the structured document and the entity key: tracking, cache-busting
 * and session parameters removed (query and `;jsessionid=`-style path parameters), remaining
 * parameters sorted, fragment dropped. Two visits that differ only by campaign tags or by the
 * session a server handed out must hash the same and be the same entity (docs/design.md §5).
 */

/** Exact parameter names (lowercase) that never change what a page shows. */
const TRACKING_PARAMS = new Set([
  "gclid",
  "gclsrc",
  "dclid",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid",
  "yclid",
  "twclid",
  "ttclid",
  "li_fat_id",
  "igshid",
  "mc_eid",
  "mc_cid",
  "_ga",
  "_gl",
  "_hsenc",
  "_hsmi",
  "__hssc",
  "__hstc",
  "__hsfp",
  "hsctatracking",
  "mkt_tok",
  "oly_anon_id",
  "oly_enc_id",
  "vero_id",
  "vero_conv",
  "rb_clickid",
  "s_cid",
  "ref",
  "ref_src",
  "ref_url",
  "referrer",
  "spm",
  "scm",
  "si",
  "_branch_match_id",
  "wickedid",
  "irclickid",
  "srsltid",
  // cache busting
  "_",
  "cb",
  "cachebust",
  "cachebuster",
  "cache_bust",
  "nocache",
]);

/** Name prefixes: utm_source, utm_medium…, pk_campaign (Matomo), hsa_* (HubSpot ads). */
const TRACKING_PREFIXES = ["utm_", "pk_", "hsa_", "mtm_", "piwik_"];

/**
 * Session identifiers servers put into URLs (Java, PHP, classic ASP, ColdFusion, Zen Cart,
 * osCommerce, generic names). Lowercase; also matched as `;name=value` path parameters.
 */
const SESSION_PARAMS = new Set([
  "jsessionid",
  "phpsessid",
  "sid",
  "sessid",
  "sessionid",
  "session_id",
  "cfid",
  "cftoken",
  "zenid",
  "oscsid",
  "xtcsid",
  "ps_session",
  "wsessionid",
  "bv_sessionid",
]);

/** Name prefixes of session parameters: ASPSESSIONIDQACSTRAB=… (classic ASP adds a random suffix). */
const SESSION_PREFIXES = ["aspsessionid"];

export function isSessionParam(name: string): boolean {
  const n = name.toLowerCase();
  if (SESSION_PARAMS.has(n)) return true;
  for (const p of SESSION_PREFIXES) if (n.startsWith(p)) return true;
  return false;
}

export function isTrackingParam(name: string): boolean {
  const n = name.toLowerCase();
  if (TRACKING_PARAMS.has(n)) return true;
  for (const p of TRACKING_PREFIXES) if (n.startsWith(p)) return true;
  return false;
}

/** ASP.NET cookieless sessions put the id in a path segment: /(S(lit3py55t21z5v55vlm25s55))/page.aspx */
const ASPNET_COOKIELESS_SEGMENT = /^\((?:[A-Za-z]\([^()/]*\))+\)$/;

/** Drops `;jsessionid=…`-style session path parameters and cookieless-session segments. */
function cleanPath(pathname: string): string {
  if (!pathname.includes(";") && !pathname.includes("(")) return pathname;
  const segments = pathname.split("/").flatMap((segment) => {
    if (ASPNET_COOKIELESS_SEGMENT.test(decodeURIComponentSafe(segment))) return [];
    if (!segment.includes(";")) return [segment];
    const [head, ...params] = segment.split(";");
    const kept = params.filter((p) => !isSessionParam(decodeURIComponentSafe(p.split("=")[0] ?? "")));
    return [[head, ...kept].join(";")];
  });
  return segments.join("/") || "/";
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Returns the cleaned absolute URL, or null when `raw` is not a usable http(s) URL. */
export function cleanUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  url.hash = "";
  url.username = "";
  url.password = "";
  url.pathname = cleanPath(url.pathname);
  if (url.search) {
    const kept = [...url.searchParams].filter(([k]) => !isTrackingParam(k) && !isSessionParam(k));
    kept.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
    url.search = new URLSearchParams(kept).toString();
  }
  return url.toString();
}
