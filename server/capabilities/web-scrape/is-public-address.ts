import { isIP } from "node:net";

/**
 * Classifies an IP address literal for SSRF protection. Everything that is not plainly a public
 * unicast address is refused: IPv4 special-purpose ranges (RFC 6890 and friends), IPv6 outside
 * global unicast 2000::/3, and IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64,
 * 6to4) are judged by the embedded address, so ::ffff:127.0.0.1 is loopback like 127.0.0.1.
 */
export type TAddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "unique-local"
  | "cgnat"
  | "multicast"
  | "unspecified"
  | "broadcast"
  | "documentation"
  | "reserved"
  | "invalid";

/** Phrases used in user-facing errors ("…: loopback addresses are blocked"). */
export const ADDRESS_CLASS_LABEL: Record<Exclude<TAddressClass, "public">, string> = {
  loopback: "loopback addresses",
  private: "private network addresses",
  "link-local": "link-local addresses",
  "unique-local": "unique-local (private IPv6) addresses",
  cgnat: "carrier-grade NAT (shared) addresses",
  multicast: "multicast addresses",
  unspecified: "unspecified addresses",
  broadcast: "broadcast addresses",
  documentation: "documentation-only addresses",
  reserved: "reserved addresses",
  invalid: "invalid addresses",
};

type TRange4 = [base: number, prefix: number, cls: TAddressClass];

const ipv4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

// Ordered most-specific first where ranges nest (192.0.0.0/24 inside nothing else, fine either way).
const V4_RANGES: TRange4[] = [
  [ipv4(0, 0, 0, 0), 8, "unspecified"], // "this network"
  [ipv4(10, 0, 0, 0), 8, "private"],
  [ipv4(100, 64, 0, 0), 10, "cgnat"],
  [ipv4(127, 0, 0, 0), 8, "loopback"],
  [ipv4(169, 254, 0, 0), 16, "link-local"], // includes cloud metadata 169.254.169.254
  [ipv4(172, 16, 0, 0), 12, "private"],
  [ipv4(192, 0, 0, 0), 24, "reserved"], // IETF protocol assignments
  [ipv4(192, 0, 2, 0), 24, "documentation"],
  [ipv4(192, 31, 196, 0), 24, "reserved"], // AS112
  [ipv4(192, 52, 193, 0), 24, "reserved"], // AMT
  [ipv4(192, 88, 99, 0), 24, "reserved"], // 6to4 relay anycast
  [ipv4(192, 168, 0, 0), 16, "private"],
  [ipv4(192, 175, 48, 0), 24, "reserved"], // direct delegation AS112
  [ipv4(198, 18, 0, 0), 15, "reserved"], // benchmarking
  [ipv4(198, 51, 100, 0), 24, "documentation"],
  [ipv4(203, 0, 113, 0), 24, "documentation"],
  [ipv4(224, 0, 0, 0), 4, "multicast"],
  [ipv4(255, 255, 255, 255), 32, "broadcast"],
  [ipv4(240, 0, 0, 0), 4, "reserved"],
];

function classifyV4Number(n: number): TAddressClass {
  for (const [base, prefix, cls] of V4_RANGES) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    if ((n & mask) >>> 0 === base) return cls;
  }
  return "public";
}

function parseV4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const v = Number(p);
    if (v > 255) return undefined;
    n = n * 256 + v;
  }
  return n;
}

/** Eight 16-bit groups, or undefined. Accepts `::` compression and a trailing dotted IPv4. */
function parseV6(text: string): number[] | undefined {
  let s = text;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".", lastColon)) {
    // ::ffff:1.2.3.4 → ::ffff:102:304
    const v4 = parseV4(s.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const toNums = (part: string) => {
    if (part === "") return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
      out.push(Number.parseInt(g, 16));
    }
    return out;
  };
  const dbl = s.indexOf("::");
  if (dbl < 0) {
    const all = toNums(s);
    return all && all.length === 8 ? all : undefined;
  }
  if (s.indexOf("::", dbl + 1) >= 0) return undefined;
  const head = toNums(s.slice(0, dbl));
  const rest = toNums(s.slice(dbl + 2));
  if (!head || !rest) return undefined;
  const fill = 8 - head.length - rest.length;
  if (fill < 1) return undefined;
  return [...head, ...new Array<number>(fill).fill(0), ...rest];
}

function classifyV6(g: number[]): TAddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = ((g6 << 16) | g7) >>> 0;
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstFiveZero && g5 === 0) {
    if (g6 === 0 && g7 === 0) return "unspecified";
    if (g6 === 0 && g7 === 1) return "loopback";
    return classifyV4Number(embedded); // IPv4-compatible (deprecated) ::a.b.c.d
  }
  if (firstFiveZero && g5 === 0xffff) return classifyV4Number(embedded); // IPv4-mapped
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return classifyV4Number(embedded); // IPv4-translated
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4Number(embedded); // NAT64
  if (g0 === 0x2002) return classifyV4Number(((g1 << 16) | g2) >>> 0); // 6to4 embeds the IPv4 in bits 16–48
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local"; // fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return "link-local"; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return "private"; // fec0::/10 site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  if (g0 === 0x2001 && g1 === 0x0db8) return "documentation";
  if ((g0 & 0xfff0) === 0x3ff0) return "documentation"; // 3fff::/20
  if (g0 === 0x2001 && g1 < 0x0200) return "reserved"; // 2001::/23 IETF protocol assignments (Teredo, ORCHID…)
  if ((g0 & 0xe000) !== 0x2000) return "reserved"; // only 2000::/3 is global unicast
  return "public";
}

export function classifyAddress(address: string): TAddressClass {
  const text = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(text.split("%")[0] ?? "");
  if (family === 4) {
    const n = parseV4(text);
    return n === undefined ? "invalid" : classifyV4Number(n);
  }
  if (family === 6) {
    const groups = parseV6(text);
    return groups ? classifyV6(groups) : "invalid";
  }
  return "invalid";
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}
