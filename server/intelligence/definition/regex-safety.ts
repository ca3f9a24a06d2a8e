/**
 * Guards for user/agent-authored regular expressions. JavaScript has no linear-time regex engine,
 * so we (1) refuse the classic catastrophic shapes up front and (2) cap the text a regex ever sees.
 */

/** Longest text a regex extractor is run against; beyond this the text is truncated. */
export const MAX_REGEX_TEXT_CHARS = 100_000;
export const MAX_REGEX_PATTERN_CHARS = 500;
/** `g` and `y` make RegExp objects stateful, so they are not accepted; the extractor adds `g` itself for lists. */
export const ALLOWED_REGEX_FLAGS = /^[imsu]*$/;

// A quantified group whose body already ends in a quantifier: (a+)+, (\w*)*, (x{2,})+ …
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}]\)\s*(?:[+*]|\{\d+,?\d*\})/;

/** Returns a readable problem with the pattern, or null when it compiles and looks safe. */
export function checkRegexPattern(pattern: string, flags = ""): string | null {
  if (pattern.length > MAX_REGEX_PATTERN_CHARS)
    return `the pattern is longer than ${MAX_REGEX_PATTERN_CHARS} characters`;
  if (!ALLOWED_REGEX_FLAGS.test(flags) || new Set(flags).size !== flags.length) {
    return `flags "${flags}" are not allowed (use any of i, m, s, u once each)`;
  }
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    return `the pattern does not compile: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (NESTED_QUANTIFIER.test(pattern)) {
    return "the pattern nests quantifiers, e.g. (a+)+, which can take exponential time; simplify it";
  }
  return null;
}

/** Number of capturing groups in a (valid) pattern: an empty alternative always matches "". */
export function countCaptureGroups(pattern: string, flags = ""): number {
  const match = new RegExp(`${pattern}|`, flags).exec("");
  return match ? match.length - 1 : 0;
}
