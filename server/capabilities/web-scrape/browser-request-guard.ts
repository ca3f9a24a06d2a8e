import { isIP } from "node:net";
import type { TFetchConfig } from "../config";
import { CapabilityFailure } from "../envelope";
import { ADDRESS_CLASS_LABEL, classifyAddress } from "./is-public-address";
import { defaultResolve, isAllowedHost, precheck } from "./safe-fetch";

/**
 * The fetch's guards for every request a rendering browser makes (docs/page-reading.md, "Pages that need a browser"): the page itself, its
 * scripts, XHR/fetch calls, iframes and every redirect hop (render-page.ts sends each hop back through
 * here). Same rules as safe-fetch.ts: scheme, credentials, literal IPs, localhost names, and every address a
 * hostname resolves to (with the same resolver) must be public unless FETCH_ALLOW_HOSTS allows the host.
 * On top: media (images, fonts, audio/video) and known third-party trackers are refused so the rendered
 * document stays stable and cheap.
 */

export type TBrowserRequestVerdict =
  | { allow: true }
  | { allow: false; kind: "address" | "media" | "tracker" | "scheme"; reason: string; failure?: CapabilityFailure };

/** Playwright resource types that never change what a page says in text. */
const MEDIA_TYPES = new Set(["image", "font", "media", "texttrack", "manifest", "beacon", "ping", "eventsource"]);

/** Analytics, ad and session-replay hosts (suffix match): they change nothing on the page but its timing. */
const TRACKER_SUFFIXES = [
  "google-analytics.com",
  "googletagmanager.com",
  "googlesyndication.com",
  "googleadservices.com",
  "doubleclick.net",
  "facebook.net",
  "connect.facebook.com",
  "hotjar.com",
  "hotjar.io",
  "segment.io",
  "segment.com",
  "mixpanel.com",
  "amplitude.com",
  "fullstory.com",
  "clarity.ms",
  "newrelic.com",
  "nr-data.net",
  "sentry.io",
  "intercom.io",
  "criteo.com",
  "taboola.com",
  "outbrain.com",
  "scorecardresearch.com",
  "quantserve.com",
  "tiktok.com",
  "ads-twitter.com",
  "bat.bing.com",
  "linkedin.com/px",
];

export function isTrackerHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return TRACKER_SUFFIXES.some((s) => !s.includes("/") && (host === s || host.endsWith(`.${s}`)));
}

export async function checkBrowserRequest(
  rawUrl: string,
  resourceType: string,
  config: Pick<TFetchConfig, "allowHosts" | "resolve">,
): Promise<TBrowserRequestVerdict> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { allow: false, kind: "scheme", reason: "not a valid address" };
  }
  // In-page data never reaches the network.
  if (url.protocol === "data:" || url.protocol === "blob:") return { allow: true };
  if (MEDIA_TYPES.has(resourceType)) return { allow: false, kind: "media", reason: `${resourceType} not loaded` };
  if (isTrackerHost(url.hostname)) return { allow: false, kind: "tracker", reason: "third-party tracker" };
  const allowed = isAllowedHost(url, config.allowHosts);
  try {
    precheck(url, allowed);
  } catch (error) {
    if (!(error instanceof CapabilityFailure)) throw error;
    return {
      allow: false,
      kind: error.code === "BLOCKED_ADDRESS" ? "address" : "scheme",
      reason: error.message,
      failure: error,
    };
  }
  if (allowed) return { allow: true };
  const host = url.hostname.replace(/\.$/, "");
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  if (isIP(bare)) return { allow: true }; // a literal public IP: precheck classified it
  let found: readonly { address: string; family: number }[];
  try {
    found = await (config.resolve ?? defaultResolve)(bare);
  } catch {
    return { allow: false, kind: "address", reason: `could not resolve ${bare}` };
  }
  for (const a of found) {
    const cls = classifyAddress(a.address);
    if (cls !== "public") {
      const failure = new CapabilityFailure(
        "BLOCKED_ADDRESS",
        `Refusing to fetch ${url.href}: ${bare} resolves to ${a.address}, and ${ADDRESS_CLASS_LABEL[cls]} are blocked. Allow the host with FETCH_ALLOW_HOSTS if this is intentional.`,
        false,
        { url: url.href, address: a.address, addressClass: cls },
      );
      return { allow: false, kind: "address", reason: failure.message, failure };
    }
  }
  return found.length > 0 ? { allow: true } : { allow: false, kind: "address", reason: `${bare} has no address` };
}
