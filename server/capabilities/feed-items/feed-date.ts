/**
 * A feed's date as an ISO 8601 UTC string, or null. RSS writes RFC 822 dates ("Tue, 01 Dec 2026 09:30:00 GMT"),
 * Atom, JSON Feed and RSS 1.0's dc:date RFC 3339 / W3C-DTF ("2026-12-01T09:30:00+01:00"); real feeds mix them up, so
 * both grammars are tried on every date. Strict grammars on purpose: `new Date()` reads almost anything ("3" is
 * 1 March 2001), and a date the feed did not mean is worse than none.
 */

const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

/** RFC 822 §5.1 zones plus the few other abbreviations feeds commonly write; any other name is unreadable. */
const ZONES: Record<string, number> = {
  ut: 0,
  utc: 0,
  gmt: 0,
  z: 0,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  wet: 0,
  west: 60,
  bst: 60,
  cet: 60,
  cest: 120,
  eet: 120,
  eest: 180,
  jst: 540,
};

// [Tue,] 1 Dec 2026 09:30[:00] [GMT|+0100|+01:00] — month names in full too ("December", "Sept").
const RFC_822 =
  /^(?:[a-z]{2,9}\.?,?\s+)?(\d{1,2})[\s-]+([a-z]{3,9})\.?[\s-]+(\d{2,4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([a-z]{1,5})|([+-])(\d{2}):?(\d{2}))?$/i;

// 2026-12-01[T09:30[:00[.123]][Z|+01:00|+0100]] — a space for the T as well.
const RFC_3339 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[t\s](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(?:(z)|([+-])(\d{2}):?(\d{2})?)?)?$/i;

const MAX_DATE_CHARS = 100;

export function parseFeedDate(raw: string | null | undefined): string | null {
  if (!raw) return null;
  // A trailing comment, as RFC 822 allows: "… +0000 (UTC)".
  const text = raw.trim().replace(/\s*\([^()]*\)$/, "");
  if (!text || text.length > MAX_DATE_CHARS) return null;
  return fromRfc3339(text) ?? fromRfc822(text);
}

function fromRfc3339(text: string): string | null {
  const m = RFC_3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "", z, sign, oh = "0", om = "0"] = m;
  const ms = Number(frac.slice(0, 3).padEnd(3, "0"));
  // No offset: RFC 3339 requires one, W3C-DTF dates have none; read as UTC rather than the server's zone.
  const offset = z || !sign ? 0 : (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return utc(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms, offset);
}

function fromRfc822(text: string): string | null {
  const m = RFC_822.exec(text);
  if (!m) return null;
  const [, d, monthName = "", y = "", h, mi, s = "0", zoneName, sign, oh = "0", om = "0"] = m;
  const month = MONTHS[monthName.slice(0, 3).toLowerCase()];
  if (month === undefined) return null;
  let year = Number(y);
  // RFC 2822 §4.3: two digits are 20xx below 50, else 19xx; three digits add 1900.
  if (y.length === 2) year += year < 50 ? 2000 : 1900;
  else if (y.length === 3) year += 1900;
  let offset = 0;
  if (zoneName) {
    const zone = zoneName.toLowerCase();
    const known = ZONES[zone];
    // Military single letters are unreliable (RFC 2822 §4.3 says read them as -0000); other names are ambiguous.
    if (known !== undefined) offset = known;
    else if (zone.length !== 1 || zone === "j") return null;
  } else if (sign) offset = (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return utc(year, month, Number(d), Number(h), Number(mi), Number(s), 0, offset);
}

/** The instant as ISO 8601 UTC, or null when a part is out of range (31 February, 25:00, a +19:00 offset). */
function utc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
  offsetMinutes: number,
): string | null {
  if (year < 1000 || year > 9999 || hour > 23 || minute > 59 || second > 60 || Math.abs(offsetMinutes) > 18 * 60)
    return null;
  // A leap second (23:59:60) is read as the second before it.
  const wall = Date.UTC(year, month, day, hour, minute, Math.min(second, 59), ms);
  const check = new Date(wall);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month || check.getUTCDate() !== day) return null;
  return new Date(wall - offsetMinutes * 60_000).toISOString();
}
