import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLIENT_ADDRESS_HEADER,
  clientAddressHeaderInstalled,
  createProxyMatcher,
  installClientAddressHeader,
  plainAddress,
  resolveClientAddress,
} from "@/server/auth/client-address";
import { parseEnv, trustedProxyRanges } from "@/server/env";

/**
 * The client's address for the sign-in address limit (server/auth/client-address.ts): the connection's peer unless
 * TRUSTED_PROXIES names it, then X-Forwarded-For right to left past the trusted hops; and the header a real HTTP
 * server's requests carry it in, whatever the client sent.
 */

const none = createProxyMatcher([]);
const loopback = createProxyMatcher(trustedProxyRanges(parseEnv({ TRUSTED_PROXIES: "loopback" })));

describe("TRUSTED_PROXIES", () => {
  it("accepts addresses, CIDR ranges and the words loopback and private; empty trusts nobody", () => {
    const env = parseEnv({ TRUSTED_PROXIES: " 10.1.2.3, 192.0.2.0/24 ,2001:db8::/32,Loopback,private " });
    expect(env.TRUSTED_PROXIES).toEqual(["10.1.2.3", "192.0.2.0/24", "2001:db8::/32", "loopback", "private"]);
    expect(trustedProxyRanges(env)).toEqual([
      "10.1.2.3",
      "192.0.2.0/24",
      "2001:db8::/32",
      "127.0.0.0/8",
      "::1/128",
      "10.0.0.0/8",
      "172.16.0.0/12",
      "192.168.0.0/16",
      "fc00::/7",
    ]);
    expect(parseEnv({}).TRUSTED_PROXIES).toEqual([]);
  });

  it("refuses anything else with one line naming the variable and the entry's position (not its value)", () => {
    for (const bad of ["proxy.lan", "10.0.0.0/33", "10.0.0", "everything", "constructor", "1.2.3.4,*"]) {
      expect(() => parseEnv({ TRUSTED_PROXIES: bad })).toThrow(
        /^Invalid configuration: TRUSTED_PROXIES entry \d+ is not/,
      );
    }
    expect(() => parseEnv({ TRUSTED_PROXIES: "loopback,proxy.lan" })).toThrow(
      "Invalid configuration: TRUSTED_PROXIES entry 2 is not an IP address, a CIDR range (e.g. 10.0.0.0/8) or one of the words loopback, private",
    );
    expect(() => parseEnv({ TRUSTED_PROXIES: "proxy.lan" })).not.toThrow(/proxy\.lan/);
  });

  it("reads the sign-in throttle settings: 5 free attempts, waits up to 900 s", () => {
    expect(parseEnv({})).toMatchObject({ SIGN_IN_THROTTLE_AFTER: 5, SIGN_IN_THROTTLE_MAX_SECONDS: 900 });
    expect(parseEnv({ SIGN_IN_THROTTLE_AFTER: "3", SIGN_IN_THROTTLE_MAX_SECONDS: "2" })).toMatchObject({
      SIGN_IN_THROTTLE_AFTER: 3,
      SIGN_IN_THROTTLE_MAX_SECONDS: 2,
    });
    expect(() => parseEnv({ SIGN_IN_THROTTLE_AFTER: "0" })).toThrow(/SIGN_IN_THROTTLE_AFTER/);
    expect(() => parseEnv({ SIGN_IN_THROTTLE_MAX_SECONDS: "0" })).toThrow(/SIGN_IN_THROTTLE_MAX_SECONDS/);
  });
});

describe("plainAddress and the proxy matcher", () => {
  it("reduces the spellings of one address to the bare address, and refuses what is not one", () => {
    expect(plainAddress(" 203.0.113.9 ")).toBe("203.0.113.9");
    expect(plainAddress("203.0.113.9:51234")).toBe("203.0.113.9");
    expect(plainAddress("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(plainAddress("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(plainAddress("fe80::1%eth0")).toBe("fe80::1");
    for (const bad of ["", "unknown", "example.com", "999.1.1.1", "1.2.3.4, 5.6.7.8"])
      expect(plainAddress(bad)).toBeNull();
  });

  it("matches addresses and ranges of both families, IPv4-mapped peers included", () => {
    const match = createProxyMatcher(["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"]);
    expect(match("10.200.3.4")).toBe(true);
    expect(match("::ffff:10.200.3.4")).toBe(true);
    expect(match("11.0.0.1")).toBe(false);
    expect(match("2001:db8:ffff::1")).toBe(true);
    expect(match("2001:db9::1")).toBe(false);
    expect(match("192.0.2.7")).toBe(true);
    expect(match("192.0.2.8")).toBe(false);
    expect(match("not an address")).toBe(false);
    expect(loopback("::1")).toBe(true);
    expect(loopback("127.0.0.1")).toBe(true);
    expect(none("127.0.0.1")).toBe(false);
  });
});

describe("resolveClientAddress", () => {
  it("without trusted proxies is the connection's peer, whatever X-Forwarded-For says", () => {
    expect(resolveClientAddress({ remoteAddress: "198.51.100.4", forwardedFor: "203.0.113.9" }, none)).toBe(
      "198.51.100.4",
    );
    expect(resolveClientAddress({ remoteAddress: "::ffff:127.0.0.1", forwardedFor: "1.1.1.1" }, none)).toBe(
      "127.0.0.1",
    );
    expect(resolveClientAddress({ remoteAddress: undefined, forwardedFor: "1.1.1.1" }, none)).toBeNull();
  });

  it("from a peer that is not a trusted proxy ignores X-Forwarded-For too", () => {
    expect(resolveClientAddress({ remoteAddress: "198.51.100.4", forwardedFor: "203.0.113.9" }, loopback)).toBe(
      "198.51.100.4",
    );
  });

  it("through trusted proxies is the rightmost untrusted hop: what the client wrote further left does not count", () => {
    const proxies = createProxyMatcher(["127.0.0.0/8", "10.0.0.0/8"]);
    const from = (forwardedFor: string | string[] | undefined) =>
      resolveClientAddress({ remoteAddress: "127.0.0.1", forwardedFor }, proxies);
    expect(from("203.0.113.9")).toBe("203.0.113.9");
    expect(from("6.6.6.6, 203.0.113.9")).toBe("203.0.113.9");
    expect(from("6.6.6.6, 203.0.113.9, 10.0.0.2")).toBe("203.0.113.9");
    // Two X-Forwarded-For headers arrive joined; an array is read the same way.
    expect(from(["6.6.6.6", "203.0.113.9, 10.0.0.2"])).toBe("203.0.113.9");
    expect(from("[2001:db8::9]:5000")).toBe("2001:db8::9");
    // No header: the proxy itself is the client. Only proxies: the leftmost of them.
    expect(from(undefined)).toBe("127.0.0.1");
    expect(from("10.0.0.3, 10.0.0.2")).toBe("10.0.0.3");
    // A hop that is not an address: the last address a trusted proxy vouched for, never what lies beyond it.
    expect(from("203.0.113.9, garbage")).toBe("127.0.0.1");
    expect(from("203.0.113.9, garbage, 10.0.0.2")).toBe("10.0.0.2");
  });
});

describe("the header on a real HTTP server's requests", () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    // As instrumentation.ts installs it, with the test client's own address (loopback) as the trusted proxy.
    installClientAddressHeader(trustedProxyRanges(parseEnv({ TRUSTED_PROXIES: "loopback" })));
    server = http.createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ address: req.headers[CLIENT_ADDRESS_HEADER] ?? null }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const seen = async (headers: Record<string, string>) =>
    ((await (await fetch(url, { headers })).json()) as { address: string | null }).address;

  it("is written for every request and replaces a copy the client sent", async () => {
    expect(clientAddressHeaderInstalled()).toBe(true);
    expect(await seen({})).toBe("127.0.0.1");
    expect(await seen({ [CLIENT_ADDRESS_HEADER]: "6.6.6.6" })).toBe("127.0.0.1");
    expect(await seen({ "x-forwarded-for": "6.6.6.6, 203.0.113.9", [CLIENT_ADDRESS_HEADER]: "6.6.6.6" })).toBe(
      "203.0.113.9",
    );
  });
});
