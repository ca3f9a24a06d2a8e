/**
 * Rules mode's reading of a chat message as edits to the draft card (docs/design.md §3 "Setup": every agent step
 * has a deterministic fallback). A small, closed grammar — thresholds ("only if it drops more than 10 %"),
 * removing or ignoring a field ("remove title", "ignore the title"), "any change matters", the schedule
 * ("check every hour", "daily") — so the same words always make the same edit; anything else is null and
 * the turn answers with what it understands. Field names stay references here; apply-chat-edits.ts
 * resolves them against the draft. Pure: no I/O, no model.
 */

export type TDirection = "any" | "up" | "down";

export type TChatEdit =
  /** `field` null = "it": the card's main number. Thresholds are the whole new rule (nothing kept beside them). */
  | {
      kind: "threshold";
      field: string | null;
      direction: TDirection;
      absolute?: number;
      relative?: number;
      combine?: "either" | "both";
      /** An ISO code when the amount named one ("$5", "5 EUR"). */
      currency?: string;
    }
  | { kind: "remove"; field: string }
  | { kind: "ignore"; field: string }
  | { kind: "any_change"; field: string }
  | { kind: "schedule"; minutes: number }
  /** A level ("falls below $40"): understood, but not something a rule can say; the turn explains. */
  | { kind: "level"; text: string };

/** The edits a message asks for, in order, or null when any part of it is not understood (then none apply). */
export function parseChatEdits(message: string): TChatEdit[] | null {
  const clauses = splitClauses(normalise(message));
  if (clauses.length === 0) return null;
  const edits: TChatEdit[] = [];
  for (const clause of clauses) {
    const parsed = parseClause(clause);
    if (!parsed) return null;
    edits.push(...parsed);
  }
  return edits;
}

// ── normalising and splitting ───────────────────────────────────────────────────────────────────────

function normalise(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[‘’`´]/g, "'")
      .replace(/[“”«»"]/g, "")
      // 1,000 → 1000; a decimal comma (0,3) → 0.3
      .replace(/(\d),(\d{3})(?!\d)/g, "$1$2")
      .replace(/(\d),(\d)/g, "$1.$2")
      .replace(/\b(per cent|percent|pct)\b/g, "%")
      .replace(/(\d)\s+%/g, "$1%")
      .replace(/\s+/g, " ")
      .trim()
  );
}

const COMMAND_START =
  /(?:also\s+)?(?:remove|delete|drop the|get rid|take out|stop|don't|do not|ignore|never|check|refresh|look|poll|only|alert|notify|tell|let me know|every|daily|hourly|any change)\b/
    .source;

function splitClauses(text: string): string[] {
  return text
    .split(
      new RegExp(
        `\\s*(?:[;\\n!?]|\\.(?!\\d)|,?\\s+(?:and\\s+)?then\\s+|,?\\s+and\\s+(?=${COMMAND_START})|,\\s*(?=${COMMAND_START}))\\s*`,
      ),
    )
    .map(cleanClause)
    .filter(Boolean);
}

const FILLER_START =
  /^(?:(?:please|pls|ok|okay|also|and|then|now|so|hey|can you|could you|would you|i want you to|i'd like you to|i want to|i'd like to|let's|lets)\b[\s,]*)+/;
const FILLER_END = /(?:[\s,]+(?:please|pls|thanks|thank you|instead|too|as well))+$/;

function cleanClause(clause: string): string {
  return clause
    .trim()
    .replace(/[.,:]+$/, "")
    .replace(FILLER_START, "")
    .replace(FILLER_END, "")
    .trim();
}

// ── one clause ─────────────────────────────────────────────────────────────────────────────────────

function parseClause(clause: string): TChatEdit[] | null {
  const amounts = findAmounts(clause);
  const threshold = amounts.length > 0 ? parseThreshold(clause, amounts) : null;
  if (threshold) return [threshold];
  const minutes = parseSchedule(clause);
  if (minutes !== null) return [{ kind: "schedule", minutes }];
  // "ignore …" with an amount but no "under …" is ambiguous ("ignore drops of 5%"): not guessed.
  if (amounts.length > 0 && IGNORING.test(clause)) return null;
  return parseFieldCommand(clause);
}

// ── thresholds ─────────────────────────────────────────────────────────────────────────────────────

type TAmount = { value: number; percent: boolean; currency?: string; index: number; end: number };

const CURRENCY_SIGNS: Record<string, string> = { $: "USD", "€": "EUR", "£": "GBP" };
const CURRENCY_WORDS: Record<string, string> = {
  usd: "USD",
  dollar: "USD",
  dollars: "USD",
  bucks: "USD",
  eur: "EUR",
  euro: "EUR",
  euros: "EUR",
  gbp: "GBP",
  pound: "GBP",
  pounds: "GBP",
  chf: "CHF",
  jpy: "JPY",
  yen: "JPY",
};
const AMOUNT =
  /(?:([$€£])\s*)?(?<![a-z_\d.])(\d+(?:\.\d+)?)(?:\s*(%)|\s*([$€£])|\s*\b(usd|dollars?|bucks|eur|euros?|gbp|pounds?|chf|jpy|yen)\b)?/g;

function findAmounts(clause: string): TAmount[] {
  const out: TAmount[] = [];
  for (const m of clause.matchAll(AMOUNT)) {
    const value = Number(m[2]);
    if (!Number.isFinite(value)) continue;
    const sign = m[1] ?? m[4];
    const currency = sign ? CURRENCY_SIGNS[sign] : m[5] ? CURRENCY_WORDS[m[5]] : undefined;
    out.push({
      value,
      percent: m[3] === "%",
      ...(currency ? { currency } : {}),
      index: m.index ?? 0,
      end: (m.index ?? 0) + m[0].length,
    });
  }
  return out;
}

const DOWN =
  /\b(?:drops?|dropped|dropping|falls?|fell|falling|decreases?|decreased|decreasing|declines?|declined|goes down|go down|gets cheaper|get cheaper|becomes cheaper|dips?|sinks?|plunges?|lowers?|lowered|reduces?|reduced|cuts?)\b/;
const UP =
  /\b(?:rises?|rose|rising|increases?|increased|increasing|goes up|go up|gets (?:more expensive|pricier)|climbs?|jumps?|grows?|raises?|raised|spikes?)\b/;
const ANY =
  /\b(?:moves?|moved|moving|changes?|changed|changing|shifts?|swings?|wobbles?|varies|fluctuates?|differs?)\b/;
/** After the verb, "below 40" / "above 50" name a level, not a move. */
const LEVEL = /^\s*(?:to\s+|is\s+)?(?:below|under|above|beneath|lower than|higher than|less than|cheaper than)\b/;

const IGNORING = /^(?:ignore|never flag|don't flag|do not flag|don't care|do not care|i don't care)\b/;

const TRIGGER_START =
  /^(?:(?:only|just|but|and|please|alert me|notify me|tell me|ping me|warn me|let me know|flag it|flag|count it|it counts|matters?|material|(?:don't|do not) (?:tell|alert|notify|bother|ping) me)\b\s*)*(?:(?:if|when|whenever|once|in case|as soon as|unless)\b\s*)?(?:(?:only)\b\s*)?/;

function parseThreshold(clause: string, amounts: TAmount[]): TChatEdit | null {
  // "ignore rating wobbles under 0.3" / "ignore moves below 5%": small moves are noise, i.e. the threshold.
  const ignoreSmall =
    /^(?:ignore|never flag|don't flag|do not flag)\s+(.*?)\s*\b(?:under|below|less than|smaller than|up to)\s+/.exec(
      clause,
    );
  let direction: TDirection;
  let ref: string | null;
  if (ignoreSmall) {
    const subject = ignoreSmall[1] ?? "";
    const verb = DOWN.exec(subject) ?? UP.exec(subject) ?? ANY.exec(subject);
    direction = "any";
    ref = fieldRef(verb ? subject.slice(0, verb.index) : subject.replace(/\b(?:changes?|moves?)\b.*$/, ""));
    if (ref === null && verb) ref = refAfterVerb(subject.slice(verb.index + verb[0].length));
  } else {
    const down = DOWN.exec(clause);
    const up = UP.exec(clause);
    const any = ANY.exec(clause);
    const verb = [down, up, any].filter((m): m is RegExpExecArray => m !== null).sort((a, b) => a.index - b.index)[0];
    if (!verb || IGNORING.test(clause)) return null;
    // Both a rise and a drop named ("rises or drops") → either way.
    direction = down && up ? "any" : down ? "down" : up ? "up" : "any";
    const after = clause.slice(verb.index + verb[0].length);
    if (LEVEL.test(after)) return { kind: "level", text: clause };
    ref = fieldRef(clause.slice(0, verb.index));
    if (ref === null) ref = refAfterVerb(after);
  }

  const first = amounts[0];
  if (!first) return null;
  const edit: Extract<TChatEdit, { kind: "threshold" }> = { kind: "threshold", field: ref, direction };
  const put = (a: TAmount) => {
    if (a.percent) edit.relative = Number((a.value / 100).toPrecision(12));
    else {
      edit.absolute = a.value;
      if (a.currency) edit.currency = a.currency;
    }
  };
  put(first);
  const second = amounts[1];
  if (second) {
    // One amount and one percentage, joined by "or" (either is enough) or "and" (both must be crossed).
    if (amounts.length > 2 || first.percent === second.percent) return null;
    const between = clause.slice(first.end, second.index);
    const joiner = /\b(or|and)\b/.exec(between)?.[1];
    if (!joiner) return null;
    put(second);
    edit.combine = joiner === "and" ? "both" : "either";
  }
  if ((edit.absolute ?? 1) <= 0 || (edit.relative ?? 1) <= 0) return null;
  return edit;
}

/** Words around a field's name that are never part of it ("I only care if the price …"). */
const FILLER_WORDS =
  /\b(?:only|just|if|when|whenever|unless|the|a|an|its|it's|my|our|their|by|more|than|at|least|over|of|or|i|we|me|care|about|on|for|alert|notify|tell|really|do|does|larger|bigger|greater|any)\b/g;

const IT = new Set(["", "it", "this", "that", "its value", "the value", "value", "the number", "number"]);

/** The field a clause names before its verb ("only when the team plan price rises …" → "team plan price"). */
function fieldRef(beforeVerb: string): string | null {
  const ref = beforeVerb
    .replace(TRIGGER_START, "")
    .replace(/[$€£]?\d+(?:\.\d+)?\s*%?/g, " ")
    .replace(FILLER_WORDS, " ")
    .replace(/'s\b/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return IT.has(ref) ? null : ref;
}

/** "… drops in price by more than 10%" → "price". */
function refAfterVerb(after: string): string | null {
  const m = /^\s*(?:of|in|to|on|for)\s+(?:the\s+)?(.+?)\s+(?:by|of|more|at|over|beyond)\b/.exec(after);
  return m?.[1] ? fieldRef(m[1]) : null;
}

// ── schedule ───────────────────────────────────────────────────────────────────────────────────────

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  ten: 10,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  "half an": 0.5,
  half: 0.5,
};
const UNIT_MINUTES: [RegExp, number][] = [
  [/^(?:m|min|mins|minute|minutes)$/, 1],
  [/^(?:h|hr|hrs|hour|hours)$/, 60],
  [/^(?:d|day|days|morning|mornings|night|nights|evening)$/, 1440],
  [/^(?:week|weeks)$/, 10_080],
];
const NAMED_SCHEDULES: Record<string, number> = {
  hourly: 60,
  "each hour": 60,
  "per hour": 60,
  "once an hour": 60,
  "an hour": 60,
  "once per hour": 60,
  "half-hourly": 30,
  "twice an hour": 30,
  daily: 1440,
  nightly: 1440,
  "each day": 1440,
  "once a day": 1440,
  "once per day": 1440,
  "per day": 1440,
  "a day": 1440,
  "twice a day": 720,
  "twice daily": 720,
  "four times a day": 360,
  weekly: 10_080,
  "once a week": 10_080,
  "a week": 10_080,
};

/**
 * Minutes of a schedule clause ("check every hour", "every 15 minutes", "daily"), or null. Any number of
 * minutes comes back; whether the app offers it is the caller's check (contracts/schedule.ts).
 */
export function parseSchedule(clause: string): number | null {
  const rest = clause
    .replace(
      /^(?:(?:only\s+)?(?:check|recheck|refresh|look|poll|run|update|scan|read|fetch|watch|track)(?:\s+(?:it|this|that|the page|the site|the place|again|back|in))?\s*)?(?:(?:only|once|just)\s+)?/,
      "",
    )
    .replace(/\s+(?:or so|at most|at least)$/, "")
    .trim();
  const named = NAMED_SCHEDULES[rest];
  if (named !== undefined) return named;
  const every =
    /^(?:every|each|once every)\s+(?:(\d+(?:\.\d+)?|half an|half|an?|one|two|three|four|five|six|ten|twelve|fifteen|twenty|thirty)\s*)?([a-z]+)$/.exec(
      rest,
    );
  if (!every) return null;
  const count = every[1] === undefined ? 1 : /^\d/.test(every[1]) ? Number(every[1]) : NUMBER_WORDS[every[1]];
  const unit = UNIT_MINUTES.find(([re]) => re.test(every[2] ?? ""))?.[1];
  if (count === undefined || unit === undefined) return null;
  const minutes = count * unit;
  return Number.isInteger(minutes) && minutes > 0 ? minutes : null;
}

// ── remove / ignore / any change ────────────────────────────────────────────────────────────────────

const REMOVE =
  /^(?:remove|delete|drop|get rid of|take out|lose|stop (?:tracking|watching)|don't (?:track|watch)|do not (?:track|watch)|no need for|we don't need|i don't need|forget(?: about)?)\s+(.+)$/;
const IGNORE =
  /^(?:ignore|never flag|don't flag|do not flag|don't care about|do not care about|i don't care about)\s+(?:(?:any\s+)?(?:changes?|moves?)\s+(?:to|in|of)\s+)?(.+?)(?:\s+(?:changes?|moves?))?$/;
const ANY_CHANGE = [
  /^any change (?:to|in|of) (.+?) (?:matters|counts|is material|is important)$/,
  /^(?:flag|alert me (?:on|about|to)|tell me about|notify me (?:on|of|about)|report) any change (?:to|in|of) (.+)$/,
  /^(?:every|any) change (?:to|in|of) (.+)$/,
  /^(.+?) (?:matters on any change|: any change matters|any change matters|changes always matter|always matters)$/,
];

function parseFieldCommand(clause: string): TChatEdit[] | null {
  for (const re of ANY_CHANGE) {
    const m = re.exec(clause);
    if (m?.[1]) return refList(m[1])?.map((field) => ({ kind: "any_change" as const, field })) ?? null;
  }
  const ignore = IGNORE.exec(clause);
  if (ignore?.[1]) return refList(ignore[1])?.map((field) => ({ kind: "ignore" as const, field })) ?? null;
  const remove = REMOVE.exec(clause);
  if (remove?.[1]) return refList(remove[1])?.map((field) => ({ kind: "remove" as const, field })) ?? null;
  return null;
}

/** "the title and headings fields" → ["title", "headings"]; null when a name is empty or just "it". */
function refList(text: string): string[] | null {
  const names = text
    .replace(/\b(?:from|off|on) (?:the )?(?:card|draft|definition|list)\b/g, "")
    .replace(/\b(?:fields?|please|entirely|completely|altogether)\b/g, "")
    .split(/\s*(?:,|\band\b|&|\+)\s*/)
    .map((part) => fieldRef(part));
  // A name is a few words, never a sentence ("remove title and make it better" is not two removals).
  const isName = (n: string | null): n is string =>
    n !== null && n.split(" ").length <= 4 && !/\b(?:it|this|that|them)\b/.test(n);
  if (names.length === 0 || !names.every(isName)) return null;
  return names;
}
