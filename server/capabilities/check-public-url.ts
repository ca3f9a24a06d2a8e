import { isIP } from "node:net";
import { AppError } from "../errors";
import type { TFetchConfig } from "./config";
import { CapabilityFailure } from "./envelope";
import { ADDRESS_CLASS_LABEL, classifyAddress } from "./web-scrape/is-public-address";
import { defaultResolve, isAllowedHost, precheck } from "./web-scrape/safe-fetch";

/** A slow resolver must not hold up creating a tracker; the fetch-time guard still checks every connection. */
const RESOLVE_TIMEOUT_MS = 3_000;
const ALLOW_HINT = "Allow the host with FETCH_ALLOW_HOSTS if this is intentional.";

/**
 * docs/design.md §8 at the door: a web address whose host is, or resolves to, a private, loopback or link-local
 * (any non-public) address is refused — a 400 naming the host, and nothing is created. It makes the same checks
 * safe-fetch makes before each connection (its precheck, the address classes, the resolver seam `config.resolve`)
 * and lets FETCH_ALLOW_HOSTS through the same way. The fetch-time guard stays: DNS can change after this answer
 * (rebinding), so this is the early, clear refusal, not the guard. A name that does not resolve now is not refused
 * here; the fetch reports it. Web sources and URL notification channels share it.
 */
export async function assertPublicUrl(raw: unknown, config: TFetchConfig): Promise<void> {
  // A missing or malformed address is the input schema's to report (parseCapabilityInput), with its own message.
  if (typeof raw !== "string" || !URL.canParse(raw.trim())) return;
  const url = new URL(raw.trim());
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  const allowed = isAllowedHost(url, config.allowHosts);
  try {
    precheck(url, allowed);
  } catch (error) {
    if (!(error instanceof CapabilityFailure)) throw error;
    if (error.code !== "BLOCKED_ADDRESS") throw new AppError("BAD_REQUEST", error.message);
    const cls = error.details?.addressClass as keyof typeof ADDRESS_CLASS_LABEL | undefined;
    throw refused(url, host, `${host} is not a public address (${cls ? ADDRESS_CLASS_LABEL[cls] : "it"} are blocked)`, {
      address: bare,
      addressClass: cls ?? "invalid",
    });
  }
  if (allowed || isIP(bare)) return;

  const found = await resolveWithin(config.resolve ?? defaultResolve, bare);
  for (const { address } of found) {
    const cls = classifyAddress(address);
    if (cls !== "public") {
      throw refused(url, host, `${host} resolves to ${address}, and ${ADDRESS_CLASS_LABEL[cls]} are blocked`, {
        address,
        addressClass: cls,
      });
    }
  }
}

function refused(url: URL, host: string, why: string, details: Record<string, unknown>): AppError {
  return new AppError("BAD_REQUEST", `Cannot watch ${url.href}: ${why}. ${ALLOW_HINT}`, {
    details: { host, ...details },
  });
}

/** The resolver's answer, or none when it fails or takes too long (then the fetch decides, with its own guard). */
async function resolveWithin(
  resolve: NonNullable<TFetchConfig["resolve"]>,
  hostname: string,
): Promise<readonly { address: string; family: number }[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<readonly { address: string; family: number }[]>((done) => {
    timer = setTimeout(() => done([]), RESOLVE_TIMEOUT_MS);
    timer.unref?.();
  });
  try {
    return await Promise.race([resolve(hostname).catch(() => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
