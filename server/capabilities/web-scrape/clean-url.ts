/**
 * Canonical form of a URL for the structured document: tracking and cache-busting query
 * parameters removed, remaining parameters sorted, fragment dropped. Two visits that differ
 * only by campaign tags must hash the same.
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

export function isTrackingParam(name: string): boolean {
  const n = name.toLowerCase();
  if (TRACKING_PARAMS.has(n)) return true;
  for (const p of TRACKING_PREFIXES) if (n.startsWith(p)) return true;
  return false;
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
  if (url.search) {
    const kept = [...url.searchParams].filter(([k]) => !isTrackingParam(k));
    kept.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
    url.search = new URLSearchParams(kept).toString();
  }
  return url.toString();
}
