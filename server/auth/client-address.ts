import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import { BlockList, isIPv4, isIPv6 } from "node:net";
import { getEnv, trustedProxyRanges } from "../env";

/**
 * Who is on the other end of a request, for the sign-in address limit (docs/accounts.md, "Sign-in throttling").
 *
 * Next (`next start`) fills X-Forwarded-For with the socket's address only when the request has none, so the header
 * is whatever the client wrote, and neither the Next proxy (proxy.ts) nor a route handler can see the socket. What
 * can: node's `http.server.request.start` diagnostics channel (public API, also used by the graceful shutdown), which
 * runs before Next reads the request. There the address is resolved once — the connection's peer, or, when that peer
 * is a trusted proxy (TRUSTED_PROXIES), X-Forwarded-For read right to left past the trusted hops — and written into
 * CLIENT_ADDRESS_HEADER, replacing any copy the client sent. better-auth reads that header and no other
 * (create-auth.ts).
 */

export const CLIENT_ADDRESS_HEADER = "x-bellwether-client-ip";

/** "1.2.3.4", "::ffff:1.2.3.4", "[::1]:443", "1.2.3.4:5678", "fe80::1%eth0" → the bare address; anything else → null. */
export function plainAddress(value: string): string | null {
  let address = value.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  address = address.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped?.[1]) address = mapped[1];
  return isIPv4(address) || isIPv6(address) ? address : null;
}

/** Whether an address is one of `ranges` (addresses and CIDR ranges, as trustedProxyRanges in server/env.ts gives). */
export type TProxyMatcher = (address: string) => boolean;

export function createProxyMatcher(ranges: readonly string[]): TProxyMatcher {
  if (ranges.length === 0) return () => false;
  const list = new BlockList();
  for (const range of ranges) {
    const [network = "", prefix] = range.split("/");
    const type = isIPv6(network) ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(network, type);
    else list.addSubnet(network, Number(prefix), type);
  }
  return (address) => {
    const plain = plainAddress(address);
    return plain !== null && list.check(plain, isIPv6(plain) ? "ipv6" : "ipv4");
  };
}

/**
 * The client's address: the peer's, unless the peer is a trusted proxy; then the rightmost X-Forwarded-For entry that
 * is not a trusted proxy (each proxy appends the address it was connected from, so entries left of the last
 * untrusted one are the client's own writing). An entry that is not an address stops the walk at the last address
 * a trusted proxy vouched for; a chain of trusted proxies only gives its leftmost one. Null without a peer address.
 */
export function resolveClientAddress(
  input: { remoteAddress: string | undefined; forwardedFor: string | string[] | undefined },
  isTrustedProxy: TProxyMatcher,
): string | null {
  const peer = plainAddress(input.remoteAddress ?? "");
  if (peer === null || !isTrustedProxy(peer)) return peer;
  const hops = [input.forwardedFor ?? []].flat().join(",").split(",");
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    if ((hops[i] ?? "").trim() === "") continue;
    const hop = plainAddress(hops[i] ?? "");
    if (hop === null) return client;
    client = hop;
    if (!isTrustedProxy(hop)) return hop;
  }
  return client;
}

// On globalThis: one process may load this module more than once (Next bundles per route), but subscribes once.
const globals = globalThis as { __bellwetherClientAddress?: boolean };

/** Installs the resolution for every request this process's HTTP servers receive (instrumentation.ts). */
export function installClientAddressHeader(ranges: readonly string[] = trustedProxyRanges(getEnv())): void {
  if (globals.__bellwetherClientAddress) return;
  globals.__bellwetherClientAddress = true;
  const isTrustedProxy = createProxyMatcher(ranges);
  subscribe("http.server.request.start", (message) => {
    const { request } = message as { request: IncomingMessage };
    const address = resolveClientAddress(
      { remoteAddress: request.socket.remoteAddress, forwardedFor: request.headers["x-forwarded-for"] },
      isTrustedProxy,
    );
    if (address) request.headers[CLIENT_ADDRESS_HEADER] = address;
    else delete request.headers[CLIENT_ADDRESS_HEADER];
  });
}

/**
 * Whether this process writes CLIENT_ADDRESS_HEADER itself. Where it does not (a process that never ran
 * instrumentation.ts), the header would be the client's own writing, so it must not be read.
 */
export function clientAddressHeaderInstalled(): boolean {
  return globals.__bellwetherClientAddress === true;
}
