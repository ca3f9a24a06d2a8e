import { RE2JS, RE2JSSyntaxException } from "re2js";

/**
 * Regular expressions from definitions (written by a person or the drafting agent) run on RE2
 * (re2js), an engine whose matching time is linear in the text, so no pattern can stall the process
 * that owns the database (docs/design.md §5: extraction of untrusted pages runs in linear time). The price:
 * RE2 has no backreferences and no lookaround; such patterns are refused with a message that says so.
 * Syntax is JavaScript-style (`\d`, `(?<name>…)`, `\u00a0`) as far as RE2 can run it.
 */

/** Longest text a regex extractor is run against; beyond this the text is truncated. */
export const MAX_REGEX_TEXT_CHARS = 100_000;
export const MAX_REGEX_PATTERN_CHARS = 500;
/** `g` and `y` are JavaScript iteration state, not accepted; the extractor finds every match itself for lists. */
export const ALLOWED_REGEX_FLAGS = /^[imsu]*$/;

/** A pattern compiled for the linear-time engine. Stateless: safe to reuse. */
export type TLinearRegex = RE2JS;

export type TCompileRegexResult = { ok: true; regex: TLinearRegex } | { ok: false; problem: string };

// i, m and s mean the same in RE2. `u` has no RE2 flag: RE2 always matches whole code points.
const FLAG_BITS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  u: 0,
};

// Escapes that mean the same (or are refused with a clear error) in RE2 after translation; any other
// `\letter` would silently become the bare letter, e.g. `\k<name>` → "k<name>", so it is refused first.
const KNOWN_ESCAPE_LETTERS = new Set("nrtfvdDsSwWbBpPAzQEuxc".split(""));

/** Compiles a definition's pattern for the linear-time engine, or says in plain words why it cannot. */
export function compileRegex(pattern: string, flags = ""): TCompileRegexResult {
  if (pattern.length > MAX_REGEX_PATTERN_CHARS)
    return { ok: false, problem: `the pattern is longer than ${MAX_REGEX_PATTERN_CHARS} characters` };
  if (!ALLOWED_REGEX_FLAGS.test(flags) || new Set(flags).size !== flags.length) {
    return { ok: false, problem: `flags "${flags}" are not allowed (use any of i, m, s, u once each)` };
  }
  const unsupported = findUnsupportedSyntax(pattern);
  if (unsupported) return { ok: false, problem: unsupported };
  let bits = 0;
  for (const flag of flags) bits |= FLAG_BITS[flag] ?? 0;
  try {
    return { ok: true, regex: RE2JS.compile(RE2JS.translateRegExp(pattern), bits) };
  } catch (error) {
    return { ok: false, problem: describeCompileError(error) };
  }
}

/** The schema's check: a readable problem with the pattern, or null when the engine can run it. */
export function checkRegexPattern(pattern: string, flags = ""): string | null {
  const compiled = compileRegex(pattern, flags);
  return compiled.ok ? null : compiled.problem;
}

const WHY = "extractor regexes run on RE2, a linear-time engine";
const INSTEAD = "match the surrounding text and read a capture group instead";

/**
 * Walks the pattern token by token (escapes and character classes respected) for constructs RE2
 * lacks, so the message names them instead of quoting a parser error.
 */
function findUnsupportedSyntax(pattern: string): string | null {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      if (/[1-9]/.test(next)) return `backreferences such as \\${next} are not supported (${WHY})`;
      if (next === "k") return `named backreferences (\\k<…>) are not supported (${WHY})`;
      if (/[A-Za-z]/.test(next) && !KNOWN_ESCAPE_LETTERS.has(next))
        return `the escape \\${next} is not supported (${WHY})`;
      i++;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      continue;
    }
    if (ch === "[") {
      // As in JavaScript, "[]" and "[^]" are complete classes (nothing / anything).
      const j = pattern[i + 1] === "^" ? i + 2 : i + 1;
      if (pattern[j] === "]") i = j;
      else inClass = true;
      continue;
    }
    if (ch !== "(" || pattern[i + 1] !== "?") continue;
    const head = pattern.slice(i + 2, i + 4);
    if (head.startsWith("=") || head.startsWith("!"))
      return `lookahead (?${head[0]}…) is not supported (${WHY}); ${INSTEAD}`;
    if (head === "<=" || head === "<!") return `lookbehind (?${head}…) is not supported (${WHY}); ${INSTEAD}`;
    if (head.startsWith(">")) return `atomic groups (?>…) are not supported (${WHY}, which never backtracks)`;
  }
  return null;
}

function describeCompileError(error: unknown): string {
  if (error instanceof RE2JSSyntaxException) {
    const description = error.getDescription();
    if (description === "invalid nested repetition operator")
      return `possessive or doubled quantifiers such as a++ or a*+ are not supported (${WHY}, which never backtracks)`;
    const where = error.getPattern();
    return `the pattern does not compile: ${description}${where ? `: ${where}` : ""}`;
  }
  return `the pattern does not compile: ${error instanceof Error ? error.message : String(error)}`;
}
