import { ELEMENT_NUMBER, type TCssAnswer, type TCssQuery } from "../../capabilities";

/**
 * Finding things on the page view's copy by CSS, answered in a page worker (docs/page-view.md): the elements a
 * selector matches, and the deepest elements showing a text, each as its element number.
 */

export const MAX_ELEMENTS = 20;
/** Texts longer than this are not looked for on the page. */
export const MAX_TEXT = 80;

/** A query and, for a text the page shows several times, which occurrence (null: all of them). */
export type TLocate = { query: TCssQuery; nth: number | null };

const cssString = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, " ")}"`;
export const collapse = (s: string) => s.replace(/\s+/g, " ").trim();

/** The element numbers `selector` matches. */
export const numberQuery = (selector: string): TCssQuery => ({ selector, all: true, attribute: ELEMENT_NUMBER });

/** The deepest elements whose text contains `text` (a fragment without `<body>` too; not the title). */
export const showing = (text: string) =>
  numberQuery(`:contains(${cssString(text)}):not(:has(:contains(${cssString(text)}))):not(title, template)`);

/** The element numbers answered for `where` (all matches, or the nth). */
export function elementsOf(answers: Record<string, TCssAnswer>, where: TLocate | null): number[] {
  if (!where) return [];
  const key = `all|${ELEMENT_NUMBER}|${where.query.selector}`;
  const answer = answers[key];
  const numbers = answer?.ok ? answer.values.flatMap((v) => (v && /^\d+$/.test(v) ? [Number(v)] : [])) : [];
  if (where.nth === null) return numbers.slice(0, MAX_ELEMENTS);
  const one = numbers[where.nth] ?? numbers[0];
  return one === undefined ? [] : [one];
}
