import { findLabelledNumber } from "../../context";
import { isNumericFieldType, type TField } from "../definition";

/**
 * Which field a line of a context file is about (docs/context-files.md, "Which field a file's number goes to"). A line
 * such as "our Pro price 16.00" or "Pro plan: our price 16.00" states one of the person's own numbers; the words around
 * it say whose number it is ("pro"). It goes to the card's field those words name — the Pro field, never simply the
 * first price — and when the words fit several fields, or the card has only a field its words do not name, the setup
 * asks instead of guessing. Pure and deterministic: rules mode's proposal, its answers, and the check on the drafter's
 * bindings all read lines through this one module.
 */

/** One line stating one of the person's own numbers. */
export type TOwnStatement = {
  file: string;
  /** The line as the reply quotes it. */
  quote: string;
  value: number;
  /**
   * The words before the number that single this line out in its file, so the refresh reads this line back
   * (findLabelledNumber): "our Pro price", or "Pro plan: our price" when "our price" also starts another line. Null
   * when no such words exist (two lines read the same up to the number) — such a line cannot be bound by code.
   */
  label: string | null;
  /** The words between "our" and the number ("pro price"): where the field's kind (price, count…) must be named. */
  labelWords: string[];
  /** The line's other meaningful words ("pro"): whose number it is. */
  qualifiers: string[];
};

/** Words that never say whose number it is. */
const STOP = new Set(
  (
    "our ours we us is are was were be been the a an for of on in at to per by with and or as now currently today " +
    "only just about around approx approximately incl including excl excluding vat tax taxes net gross plan plans " +
    "tier tiers package packages month months mo year years yr week day usd eur gbp chf jpy dollar euro pound list " +
    "charge charges sell sells cost costs set it its this that"
  ).split(" "),
);

/** Lower-case words, split on anything not a letter or digit, plural s dropped; numbers and STOP words out. */
export function meaningfulWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !/^\d/.test(w))
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w))
    .filter((w) => !STOP.has(w));
}

const OUR = /(?:^|[^\p{L}\p{N}])(our)(?![\p{L}\p{N}])/iu;
const NUMBER = /[-+]?\d[\d,]*(?:\.\d+)?/;
/** What may stand between a label and its number, as findLabelledNumber allows it: "is", ":"…, then a currency. */
const CONNECTOR = /\s*(?:\b(?:is|are)\b|=|:|-|–)?\s*$/i;
/** A currency code in capitals ("USD") or sign; lower-case letters are words ("price"), not a code. */
const CURRENCY = /\s*(?:\b[A-Z]{3}|[$€£¥₹])\s*$/;
const BULLET = /^[\s\-*•·#>]+/;

/** Every line of a file that states one of the person's own numbers ("our …" then a number), in file order. */
export function readOwnStatements(file: { name: string; text: string }): TOwnStatement[] {
  const out: TOwnStatement[] = [];
  for (const raw of file.text.split("\n")) {
    const statement = readLine(file, raw);
    if (statement) out.push(statement);
  }
  return out;
}

function readLine(file: { name: string; text: string }, raw: string): TOwnStatement | null {
  const line = raw.trim();
  const our = OUR.exec(line);
  if (!our) return null;
  const ourAt = (our.index ?? 0) + our[0].length - 3;
  const after = line.slice(ourAt + 3);
  const number = NUMBER.exec(after);
  if (!number) return null;
  const middle = after.slice(0, number.index).replace(CURRENCY, "").replace(CONNECTOR, "");
  const value = Number(number[0].replace(/,/g, ""));
  if (!Number.isFinite(value) || middle.split(/\s+/).filter(Boolean).length > 6) return null;
  const core = `${line.slice(ourAt, ourAt + 3)}${middle}`.trimEnd();
  // What names the number before "our": the words after the last clause break, at most three ("Pro plan: ").
  const before = line.slice(0, ourAt);
  const clause = before.slice(Math.max(...[",", ";", ".", "!", "?"].map((c) => before.lastIndexOf(c))) + 1);
  const prefix = (/(?:\S+\s+){0,2}\S*\s*$/.exec(clause.replace(BULLET, ""))?.[0] ?? "").trimStart();
  // After the number, the rest of its clause, at most four words ("USD for Pro").
  const tail = after.slice(number.index + number[0].length).split(/[;,(]|\.\s|\.$|\b(?:and|but)\b/)[0] ?? "";
  const suffix = tail.trim().split(/\s+/).slice(0, 4).join(" ");
  // The shortest words that start this line and no other, so the refresh reads it back even if lines move.
  const readsThisLine = (label: string) =>
    label.length <= 100 &&
    file.text.split("\n").filter((l) => findLabelledNumber(l, label)).length === 1 &&
    findLabelledNumber(line, label) !== null;
  const withPrefix = `${prefix}${core}`.trim();
  const label = readsThisLine(core) ? core : prefix && readsThisLine(withPrefix) ? withPrefix : null;
  return {
    file: file.name,
    quote: line.slice(0, 200),
    value,
    label,
    labelWords: headWordsOf(middle),
    qualifiers: [...new Set(meaningfulWords(`${prefix} ${middle} ${suffix}`))],
  };
}

/** "count" of "review count" even when STOP would drop nothing: the label's words as written, singular. */
function headWordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
}

/** A number field as the matching reads it: its kind (the name's last word) and the words that say which one it is. */
type TFieldWords = { field: TField; head: string; names: string[]; text: Set<string> };

function fieldWords(field: TField): TFieldWords {
  const parts = field.name.split("_").filter(Boolean);
  const head = headWordsOf(parts.at(-1) ?? field.name)[0] ?? field.name;
  const fromName = meaningfulWords(parts.slice(0, -1).join(" ")).filter((w) => w !== head);
  // A generic name ("price") may say in its description which one it is: “Starter” in "The price of “Starter” — …".
  const quoted = [...(field.description ?? "").matchAll(/“([^”]{1,60})”/g)].flatMap((m) => meaningfulWords(m[1] ?? ""));
  const names = fromName.length > 0 ? fromName : quoted.filter((w) => w !== head);
  const text = new Set([...meaningfulWords(field.name), ...meaningfulWords(field.description ?? ""), ...names]);
  return { field, head, names, text };
}

export type TStatementMatch =
  /** The words name this field (or it is the only field of that kind and the line names nothing more). */
  | { kind: "field"; field: TField }
  /**
   * Several fields fit (`several`), or only a field whose name and description do not say what the line names
   * (`unnamed`): a question, never a guess.
   */
  | { kind: "unclear"; why: "several" | "unnamed"; fields: TField[] }
  /** The line is about something the card has no field for ("Pro" on a Starter-only card). */
  | { kind: "other"; fields: TField[] }
  /** No number field of the kind the line names (a price line on a card of ratings). */
  | { kind: "none" };

/** The card's number fields the statement could be about, decided by the words alone. */
export function matchStatement(statement: TOwnStatement, fields: readonly TField[]): TStatementMatch {
  const numeric = fields.filter((f) => isNumericFieldType(f.type)).map(fieldWords);
  const kindOf = numeric.filter((f) => statement.labelWords.includes(f.head));
  if (kindOf.length === 0) return { kind: "none" };
  const strong = kindOf.filter((f) => names(statement, f, kindOf));
  if (strong.length === 1 && strong[0]) return { kind: "field", field: strong[0].field };
  if (strong.length > 1) return { kind: "unclear", why: "several", fields: strong.map((f) => f.field) };
  // An unqualified "our price is 10.00" and the card's only price: nothing to confuse it with.
  if (!namesWhich(statement, fields)) {
    return kindOf.length === 1 && kindOf[0]
      ? { kind: "field", field: kindOf[0].field }
      : { kind: "unclear", why: "several", fields: kindOf.map((f) => f.field) };
  }
  // "our Pro price" and a field that says nothing of which plan it is: it may or may not be Pro's — ask.
  const unnamed = kindOf.filter((f) => f.names.length === 0);
  if (unnamed.length > 0) return { kind: "unclear", why: "unnamed", fields: unnamed.map((f) => f.field) };
  return { kind: "other", fields: kindOf.map((f) => f.field) };
}

/** Whether the line says whose number it is ("our Pro price"), beyond the kind of number ("our price is 10.00"). */
export function namesWhich(statement: TOwnStatement, fields: readonly TField[]): boolean {
  const heads = new Set(fields.map((f) => fieldWords(f).head));
  return statement.qualifiers.some((w) => !heads.has(w));
}

/**
 * Whether the statement's words name this field: every word that says which field it is ("pro" of pro_price) is on
 * the line, and the line's other words name no other field of the same kind ("annual" when pro_annual_price exists).
 * A field whose name says nothing more than its kind ("price") is named only when each of the line's words is in its
 * name or description — so "our Pro price" goes to a `price` described as the Pro plan's, not to any `price`.
 */
function names(statement: TOwnStatement, f: TFieldWords, sameKind: TFieldWords[]): boolean {
  const words = new Set(statement.qualifiers.filter((w) => w !== f.head));
  if (f.names.length === 0) return [...words].every((w) => f.text.has(w));
  if (!f.names.every((w) => words.has(w))) return false;
  const others = new Set(sameKind.filter((o) => o !== f).flatMap((o) => o.names.filter((w) => !f.names.includes(w))));
  return ![...words].some((w) => others.has(w));
}

/** Whether a reply names exactly one of the fields ("pro", "pro_price", "the Pro one"), and which. */
export function fieldNamedIn(answer: string, fields: readonly TField[]): TField | null {
  const said = new Set(headWordsOf(answer));
  const named = fields.filter((field) => {
    const { head, names } = fieldWords(field);
    const all = [...names, head];
    return (
      said.has(field.name) || (names.length > 0 && names.every((w) => said.has(w))) || all.every((w) => said.has(w))
    );
  });
  return named.length === 1 ? (named[0] ?? null) : null;
}

/** "yes", "yes, price", "correct": the answer to a yes-or-no question about one field. */
export const AFFIRMATIVE = /^\s*(?:yes|yep|yeah|yup|correct|right|exactly|it is|that'?s (?:it|right|correct))\b/i;
