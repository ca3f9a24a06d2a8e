import {
  CURRENCY_TOKENS,
  codeToken,
  resolveCurrency,
  type TCurrencyToken,
  THREE_DECIMAL_CURRENCIES,
} from "./currency-tokens";

/**
 * The one price reader. The scraper's detectPrices (structured document) and the fill step's
 * parseNumberText / money coercion both call it, so a price string reads the same everywhere
 * (before it, "Rp 31.500" was 31500 in one and 31.5 in the other).
 *
 * A price is an amount next to a currency token. Numbers without a token are never prices here
 * (years, percentages, phone numbers, "3 for 2"). Ranges ("from 26 to 50 €", "$10–$20") are one
 * price whose amount is the lower bound, with `range` stating both ends.
 * Linear: one global scan for tokens, then bounded look-behind/ahead windows around each.
 */
export type TPriceMatch = {
  /** The amount; for a range, its lower bound (stated in `range`). Negative for "-5,00 €". */
  amount: number;
  /** ISO 4217 code. */
  currency: string;
  /** Both ends when the text states a range. */
  range?: { min: number; max: number };
  /** Offsets of the matched text in the input (end exclusive). */
  start: number;
  end: number;
};

export type TFindPricesOptions = {
  /** Resolves ambiguous tokens ("$" → CAD, "kr" → NOK, "¥" → CNY) when it names one of their currencies. */
  currencyHint?: string;
  /** Stop after this many prices. */
  limit?: number;
};

// ── Regex building blocks ────────────────────────────────────────────────────────────────────

const escapeRe = (s: string) => s.replace(/[$.*+?^()[\]{}|\\/]/g, "\\$&");
/** Letters of scripts that separate words with spaces; a word-like token must not touch them. */
const WORD_LETTER = "[\\p{Script=Latin}\\p{Script=Cyrillic}\\p{Script=Greek}\\p{Script=Arabic}\\p{Script=Hebrew}]";
const WORD_LETTER_RE = new RegExp(WORD_LETTER, "u");
/** Horizontal whitespace: a price never spans lines of the structured document. */
const HS = "[^\\S\\n]";
const SUPERSCRIPT = "[\\u2070\\u00b9\\u00b2\\u00b3\\u2074-\\u2079]";
const GROUP_SEP = "[,.'’\\u00a0\\u202f\\u2009 ]";
/** Integer part: 1,299 / 1.299.000 / 1 299 / 1'299 / Indian 1,29,999 / plain digits. */
const INT = `(?:\\d{1,3}(?:${GROUP_SEP}\\d{3})+(?!\\d)|\\d{1,2}(?:,\\d{2})+,\\d{3}(?!\\d)|\\d+)`;
/** Decimal part: ".99", ",5", "19,-" / "19.–" (no cents), or superscript cents "19⁹⁹". */
const FRAC = `(?:[.,]\\d+|[.,][-–—]{1,2}(?![-–—\\d])|${SUPERSCRIPT}{2}(?!${SUPERSCRIPT}))`;
/** A number with an optional split decimal ("1.837, 32") — validated in code, see splitAllowed. */
const NUM_SPLIT = `${INT}(?:[.,] \\d{2}(?!\\d)|${FRAC})?`;
const NUM = `${INT}${FRAC}?`;
const RANGE_GAP = `(?:${HS}*[-–—~〜～]${HS}*|${HS}+(?:to|bis|à|a|au|al|hasta|até|tot|till|til|do|до|tới|đến)${HS}+)`;

const TOKEN_RE = buildTokenRegex();
const BACK_SPLIT_RE = new RegExp(`(${NUM_SPLIT})${HS}{0,2}$`, "u");
const BACK_RE = new RegExp(`(${NUM})${HS}{0,2}$`, "u");
const FWD_RE = new RegExp(`^${HS}{0,2}([-−])?(${NUM_SPLIT})`, "u");
/** After a word token a dash is a joiner ("USD-2024"), not a sign. */
const FWD_UNSIGNED_RE = new RegExp(`^${HS}{0,2}()(${NUM_SPLIT})`, "u");
const LOWER_RE = new RegExp(`(${NUM})(${RANGE_GAP})$`, "iu");
const UPPER_RE = new RegExp(`^(${RANGE_GAP})(${NUM})`, "iu");
const GAP_ONLY_RE = new RegExp(`^${RANGE_GAP}$`, "iu");
const SUPER_CENTS_RE = new RegExp(`(${SUPERSCRIPT}{2})$`, "u");
const ENDS_SUPERSCRIPT_RE = new RegExp(`${SUPERSCRIPT}$`, "u");
const WINDOW = 48;

function buildTokenRegex(): RegExp {
  const parts = Object.keys(CURRENCY_TOKENS)
    .sort((a, b) => b.length - a.length)
    .map((tok) => {
      // "Not after a letter" is checked once the token matched (a lookbehind over the letter and the token): the same
      // matches as a lookbehind in front, but the regex engine can skip every position that cannot start a token.
      const left = WORD_LETTER_RE.test(tok[0] as string) ? `(?<!${WORD_LETTER}${escapeRe(tok)})` : "";
      const right = WORD_LETTER_RE.test(tok.at(-1) as string) ? `(?!${WORD_LETTER})` : "";
      return `${escapeRe(tok)}${left}${right}`;
    });
  // Uppercase three-letter codes are checked against ISO 4217 in code; "SGD$" / "NZD $" read as the code.
  const code = `(?<!${WORD_LETTER})(?<code>[A-Z]{3})(?!${WORD_LETTER})(?:${HS}?\\$)?`;
  return new RegExp(`${parts.join("|")}|${code}`, "gu");
}

// ── Amounts ──────────────────────────────────────────────────────────────────────────────────

const SUPERSCRIPT_DIGITS: Record<string, string> = {
  "⁰": "0",
  "¹": "1",
  "²": "2",
  "³": "3",
  "⁴": "4",
  "⁵": "5",
  "⁶": "6",
  "⁷": "7",
  "⁸": "8",
  "⁹": "9",
};

/**
 * Reads the number of a price, given its currency when known.
 * - When both "," and "." appear, the last one is the decimal separator ("1.299,00", "1,299.00").
 * - A separator used more than once groups thousands ("1.299.000", Indian "1,29,999").
 * - A lone separator followed by exactly three digits groups thousands ("Rp 31.500", "$16,500",
 *   "1.299 €") — except after a leading 0 ("0.125") and in three-decimal currencies ("KWD 1.250").
 * - Otherwise a lone separator is the decimal point ("12,50", "฿ 3.3900", "34.992001").
 * - "19,-" / "19.–" have no cents; "19⁹⁹" has superscript cents; "1.837, 32" is a split decimal.
 * Apostrophes and (thin, no-break) spaces only group. Returns null when the text is not a number.
 */
export function readAmount(numberText: string, currency?: string): number | null {
  let s = numberText.trim();
  let superCents = "";
  const sup = SUPER_CENTS_RE.exec(s);
  if (sup) {
    superCents = [...(sup[1] as string)].map((c) => SUPERSCRIPT_DIGITS[c]).join("");
    s = s.slice(0, sup.index);
  }
  s = s
    .replace(/[.,][-–—]{1,2}$/, "")
    .replace(/([.,]) (\d{2})$/, "$1$2")
    .replace(/[\s'’]/g, "");
  if (!/^\d[\d.,]*$/.test(s) || /[.,]$/.test(s)) return null;
  const lastDot = s.lastIndexOf(".");
  const lastComma = s.lastIndexOf(",");
  let intPart = s;
  let frac = "";
  if (lastDot >= 0 && lastComma >= 0) {
    const decimalAt = Math.max(lastDot, lastComma);
    const decimal = s[decimalAt] as string;
    intPart = s.slice(0, decimalAt);
    frac = s.slice(decimalAt + 1);
    if (intPart.includes(decimal)) return null; // "1.234.567,8.9" is not a number
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? "." : ",";
    const parts = s.split(sep);
    const tail = parts.at(-1) as string;
    const head = s.slice(0, s.length - tail.length - 1);
    const threeDigitTail = tail.length === 3;
    const groups = parts.length > 2;
    const decimalPoint =
      !groups &&
      (!threeDigitTail || head === "0" || (currency !== undefined && THREE_DECIMAL_CURRENCIES.has(currency)));
    if (decimalPoint) {
      intPart = head;
      frac = tail;
    }
  }
  const digits = intPart.replace(/[.,]/g, "");
  if (!/^\d+$/.test(digits) || !/^\d*$/.test(frac)) return null;
  if (superCents) frac = superCents;
  const value = Number(frac ? `${digits}.${frac}` : digits);
  return Number.isFinite(value) ? value : null;
}

/** Whether an amount is substantial enough for a weak token: decimals, or three integer digits. */
function substantial(numberText: string): boolean {
  if (/[.,](?:\d+|[-–—]+)$|[.,] \d{2}$/u.test(numberText) || ENDS_SUPERSCRIPT_RE.test(numberText)) return true;
  return (numberText.match(/\d/g)?.length ?? 0) >= 3;
}

/** A split decimal ("1.837, 32") is accepted only after a grouped integer or with a point. */
function splitAllowed(numberText: string): boolean {
  const m = /^(.*)([.,]) \d{2}$/u.exec(numberText);
  if (!m) return true;
  return m[2] === "." || /[,.'’\s]/.test(m[1] as string);
}

/**
 * Arabic-Indic, Persian and fullwidth digits and separators ("٤٩٫٩٩", "１，９８０") as ASCII, one
 * UTF-16 unit for one, so offsets into the result are offsets into the original.
 */
function asciiDigits(text: string): string {
  if (!/[\u0660-\u066c\u06f0-\u06f9\uff0c\uff0e\uff10-\uff19]/.test(text)) return text;
  return text.replace(/[\u0660-\u066c\u06f0-\u06f9\uff0c\uff0e\uff10-\uff19]/g, (c) => {
    const code = c.charCodeAt(0);
    if (code >= 0x0660 && code <= 0x0669) return String(code - 0x0660);
    if (code >= 0x06f0 && code <= 0x06f9) return String(code - 0x06f0);
    if (code >= 0xff10 && code <= 0xff19) return String(code - 0xff10);
    return c === "\u066b" || c === "\uff0e" ? "." : c === "\u066c" || c === "\uff0c" ? "," : c;
  });
}

// ── Scanning ─────────────────────────────────────────────────────────────────────────────────

type TTokenHit = { start: number; end: number; token: TCurrencyToken };

/**
 * Currency tokens in order, lazily, so a capped scan stops early. Every scan runs the ONE compiled TOKEN_RE from
 * a position of its own (set before each exec, so scans may interleave). A copy per scan (`new RegExp(TOKEN_RE)`,
 * as before) recompiled the 14 KB pattern — 25 ms on the project's machine — whenever V8's regexp cache had aged it
 * out after a few garbage collections: nearly every changed page's fill on the server's thread, a rare caller
 * (tests/bench/README.md, "The price reader's one pattern").
 */
function* tokenHits(text: string): Generator<TTokenHit> {
  // Only lines with a digit are scanned. A price never spans a line (every gap above is horizontal whitespace) and its
  // amount has a digit, so a token on a line without one can become no price, extend or merge none, and — as the
  // "next token" of a price on another line — is compared across a line break, which never holds, exactly as for the
  // next token on a later line with a digit. A line read on its own matches as in the whole text: "\n" is no word
  // letter for the tokens' look-arounds.
  for (let at = 0; ; ) {
    DIGIT_RE.lastIndex = at;
    const digit = DIGIT_RE.exec(text);
    if (!digit) return;
    const lineStart = text.lastIndexOf("\n", digit.index) + 1;
    const newline = text.indexOf("\n", digit.index);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    let from = 0;
    for (;;) {
      TOKEN_RE.lastIndex = from;
      const m = TOKEN_RE.exec(line);
      if (!m) break;
      from = TOKEN_RE.lastIndex;
      const code = m.groups?.code;
      const token = code ? codeToken(code) : CURRENCY_TOKENS[m[0]];
      if (token) yield { start: lineStart + m.index, end: lineStart + m.index + m[0].length, token };
    }
    at = lineEnd;
  }
}

/** The next digit, from its lastIndex (set before each exec, like TOKEN_RE). */
const DIGIT_RE = /\d/g;

/** A character that may sit right before an amount: not a word letter, digit or number punctuation. */
function okBefore(text: string, at: number): boolean {
  if (at <= 0) return true;
  const c = text[at - 1] as string;
  return !(/[\d.,'’/_]/.test(c) || WORD_LETTER_RE.test(c));
}

/** Magnitude words after an amount ("$5k", "$1.5M", "Rp 5 juta", "₹2 crore"): not a plain price. */
const MAGNITUDE_RE =
  /^(?:[kKmMbB](?![\p{L}])|[^\S\n]*(?:bn|mn|mio|mrd|tsd|million|billion|juta|jt|ribu|rb|lakhs?|lacs?|crores?|тыс|млн|млрд)(?![\p{L}])|[^\S\n]*[万億千])/iu;

/**
 * What may follow an amount read after a prefix token: not more digits ("$1.2.3", "$12:30"), a
 * percent sign or a magnitude word. Glued words are fine ("$1,000.00Tax" from joined blocks).
 */
function okAfter(text: string, at: number): boolean {
  const rest = text.slice(at, at + 12);
  return !/^(?:\d|[.,]\d|[^\S\n]?%|[/:]\d)/u.test(rest) && !MAGNITUDE_RE.test(rest);
}

type TCandidate = { start: number; end: number; text: string; negative: boolean };

function backward(text: string, tokenStart: number, floor: number): TCandidate | undefined {
  const from = Math.max(floor, tokenStart - WINDOW);
  const slice = text.slice(from, tokenStart);
  for (const re of [BACK_SPLIT_RE, BACK_RE]) {
    const m = re.exec(slice);
    if (!m) continue;
    const numText = m[1] as string;
    if (!splitAllowed(numText)) continue;
    const start = from + m.index;
    if (!okBefore(text, start)) return undefined;
    return { start, end: start + numText.length, text: numText, negative: signBefore(text, start) };
  }
  return undefined;
}

function forward(text: string, tokenEnd: number, nextTokenStart: number | undefined): TCandidate | undefined {
  const signed = tokenEnd > 0 && !WORD_LETTER_RE.test(text[tokenEnd - 1] as string);
  const m = (signed ? FWD_RE : FWD_UNSIGNED_RE).exec(text.slice(tokenEnd, tokenEnd + WINDOW));
  if (!m) return undefined;
  let numText = m[2] as string;
  let end = tokenEnd + m[0].length;
  if (/[.,] \d{2}$/.test(numText) && (!splitAllowed(numText) || !endsPrice(text, end, nextTokenStart))) {
    // "$5, 10 pieces": not a split decimal; read the integer part alone.
    numText = numText.slice(0, -4);
    end -= 4;
  }
  if (!okAfter(text, end)) return undefined;
  return { start: end - numText.length, end, text: numText, negative: Boolean(m[1]) };
}

/** Whether the text after `at` closes a price: end of line, punctuation, or the next currency token. */
function endsPrice(text: string, at: number, nextTokenStart: number | undefined): boolean {
  const m = /^[^\S\n]*/.exec(text.slice(at, at + 8)) as RegExpExecArray;
  if (nextTokenStart === at + m[0].length) return true;
  return /^[^\S\n]*(?:$|\n|[^\p{L}\p{N}\s])/u.test(text.slice(at, at + 8));
}

/** A minus right before `at`, itself at the start or after a space, "(" or ":" ("-5,00 €", "(−$5)"). */
function signBefore(text: string, at: number): boolean {
  return at > 0 && /[-−]/.test(text[at - 1] as string) && (at < 2 || /[\s(:]/.test(text[at - 2] as string));
}

type TBuilt = TPriceMatch & { token: TCurrencyToken; numStart: number; numEnd: number };

/**
 * Every price in `text`, in order. Each currency token claims the amount next to it: the one
 * before it for suffix tokens ("5 zł"), after it for prefix tokens ("$5"), and for tokens used both
 * ways the free one — an amount already followed by another token belongs to that token
 * ("10 € 20 €"), and otherwise one with a decimal part wins ("Art. 4711 € 19,99").
 */
export function findPrices(original: string, options: TFindPricesOptions = {}): TPriceMatch[] {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const text = asciiDigits(original);
  const hits = tokenHits(text);
  const out: TBuilt[] = [];
  let consumedTo = 0;
  let next = hits.next().value;
  while (next && out.length < limit) {
    const hit: TTokenHit = next;
    next = hits.next().value;
    if (hit.start < consumedTo) continue;
    const currency = resolveCurrency(hit.token, options.currencyHint);
    const prev = out.at(-1);
    // "$123 AUD", "£94.50 GBP", "€ 12 EUR": a code right after a price names (or repeats) its currency.
    if (prev && prev.numEnd <= hit.start && /^[^\S\n]*$/.test(text.slice(prev.end, hit.start))) {
      const sameOrSharper =
        currency === prev.currency || (prev.token.alternatives?.includes(currency) && hit.token.position !== "prefix");
      if (sameOrSharper && !startsAmount(text, hit.end)) {
        prev.currency = currency;
        prev.end = hit.end;
        consumedTo = hit.end;
        continue;
      }
    }
    const { position, only, weak } = hit.token;
    const strict = only === true || weak === true;
    const before = position !== "prefix" || !strict ? backward(text, hit.start, consumedTo) : undefined;
    const after = position !== "suffix" || !strict ? forward(text, hit.end, next?.start) : undefined;
    const picked = pick(text, hit, before, after, next);
    if (!picked) continue;
    if (weak && !substantial(picked.text)) continue;
    const amount = readAmount(picked.text, currency);
    if (amount === null) continue;
    const side = picked === before ? "before" : "after";
    const signedBeforeToken = side === "after" && !picked.negative && signBefore(text, hit.start);
    const negative = picked.negative || signedBeforeToken;
    const built: TBuilt = {
      amount: negative && amount !== 0 ? -amount : amount,
      currency,
      start: side === "before" ? picked.start - (picked.negative ? 1 : 0) : hit.start - (signedBeforeToken ? 1 : 0),
      end: side === "before" ? hit.end : picked.end,
      token: hit.token,
      numStart: picked.start,
      numEnd: picked.end,
    };
    if (side === "before" && hit.start === picked.end && hit.token === CURRENCY_TOKENS["€"]) {
      // "35€99": the euro sign as the decimal point.
      const cents = /^(\d{2})(?![\d.,])/.exec(text.slice(hit.end, hit.end + 3));
      if (cents && !/[.,]/.test(picked.text)) {
        built.amount = amount + Number(cents[1]) / 100;
        built.end = hit.end + 2;
      }
    }
    if (built.amount > 0) extendRange(text, built, side, currency, consumedTo, next?.start);
    consumedTo = Math.max(built.end, built.numEnd);
    const last = out.at(-1);
    if (last && mergeRange(text, last, built)) continue;
    out.push(built);
  }
  return out.map(({ amount, currency, range, start, end }) => ({
    amount: round(amount),
    currency,
    ...(range ? { range: { min: round(range.min), max: round(range.max) } } : {}),
    start,
    end,
  }));
}

function pick(
  text: string,
  hit: TTokenHit,
  before: TCandidate | undefined,
  after: TCandidate | undefined,
  next: TTokenHit | undefined,
): TCandidate | undefined {
  if (!before || !after) return before ?? after;
  // The amount after is followed by the next token ("10 € 20 €"): it is that token's.
  if (next && /^[^\S\n]*$/.test(text.slice(after.end, next.start))) return before;
  const hasDecimals = (c: TCandidate) => /[.,](?:\d{1,2}|[-–—]+)$|[.,] \d{2}$/.test(c.text);
  if (hasDecimals(before) !== hasDecimals(after)) return hasDecimals(before) ? before : after;
  return hit.token.position === "prefix" ? after : before;
}

function startsAmount(text: string, at: number): boolean {
  return /^[^\S\n]{0,2}[-−]?\d/.test(text.slice(at, at + 4));
}

/** A bare number joined by a range word: "26 to 50 €" (before) or "$10–20" (after). */
function extendRange(
  text: string,
  price: TBuilt,
  side: "before" | "after",
  currency: string,
  floor: number,
  nextTokenStart: number | undefined,
): void {
  if (side === "before") {
    const from = Math.max(floor, price.numStart - WINDOW);
    const m = LOWER_RE.exec(text.slice(from, price.numStart));
    if (!m) return;
    const start = from + m.index;
    if (!okBefore(text, start)) return;
    const lower = readAmount(m[1] as string, currency);
    if (lower === null || lower >= price.amount) return;
    price.range = { min: lower, max: price.amount };
    price.amount = lower;
    price.start = start;
    return;
  }
  const m = UPPER_RE.exec(text.slice(price.numEnd, price.numEnd + WINDOW));
  if (!m) return;
  const end = price.numEnd + m[0].length;
  if (!okAfter(text, end)) return;
  // "$10 – 20 €" belongs to the next token; "$10-20 per night" is not read as a range.
  const rest = text.slice(end, end + 24);
  if (
    /^[^\S\n]*\p{L}/u.test(rest) ||
    (nextTokenStart !== undefined && /^[^\S\n]*$/.test(text.slice(end, nextTokenStart)))
  )
    return;
  const upper = readAmount(m[2] as string, currency);
  if (upper === null || upper <= price.amount) return;
  price.range = { min: price.amount, max: upper };
  price.end = end;
  price.numEnd = end;
}

/** "€26 – €50", "from $26 to $50", "10 € - 20 €": two prices joined by a range word are one range. */
function mergeRange(text: string, last: TBuilt, next: TBuilt): boolean {
  if (last.range || next.range || last.currency !== next.currency) return false;
  if (last.amount <= 0 || next.amount <= last.amount) return false;
  if (!GAP_ONLY_RE.test(text.slice(last.end, next.start))) return false;
  last.range = { min: last.amount, max: next.amount };
  last.end = next.end;
  last.numEnd = next.numEnd;
  return true;
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;
