import type { TPageViewField } from "@/contracts/setup-page-view";
import {
  anchorElementInWorker,
  answerCssInWorker,
  type TCapabilityConfig,
  type TCssQuery,
} from "../../../capabilities";
import type { TField } from "../../definition";
import { collapse, elementsOf, MAX_TEXT, showing } from "../page-elements";

/**
 * Re-anchoring without a model (docs/page-view.md, "Fixing a field"): for CSS fields that read on the page before
 * and read nothing now, what they read then is looked for on the page now; where exactly one element shows it, its
 * best anchor is proposed. Two page-worker rounds for all such fields, plus one per proposal.
 */

export const MAX_PROPOSALS = 3;
const MAX_PLACES_PER_TEXT = 6;

/** What each CSS field among `missing` read on the page before (null: not a CSS field, or nothing). */
export async function textsBefore(
  missing: readonly TPageViewField[],
  fields: readonly TField[],
  before: string,
  config: TCapabilityConfig,
): Promise<Map<string, string>> {
  const todo = missing.slice(0, MAX_PROPOSALS).flatMap((view) => {
    const e = fields.find((f) => f.name === view.name)?.extractor;
    return e?.kind === "css" ? [{ name: view.name, query: { selector: e.selector, all: false } as TCssQuery }] : [];
  });
  const out = new Map<string, string>();
  if (todo.length === 0) return out;
  const then = await answerCssInWorker(
    before,
    todo.map((t) => t.query),
    config.fetch.page,
  );
  for (const t of todo) {
    const a = then[`one||${t.query.selector}`];
    const text = a?.ok ? collapse(a.values[0] ?? "") : "";
    if (text && text.length <= MAX_TEXT) out.set(t.name, text);
  }
  return out;
}

/** The elements of the page now showing each text (at most a few per text). */
export async function placesShowing(
  texts: ReadonlyMap<string, string>,
  now: string,
  config: TCapabilityConfig,
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  if (texts.size === 0) return out;
  const answers = await answerCssInWorker(
    now,
    [...texts.values()].map((t) => showing(t)),
    config.fetch.page,
  );
  for (const [name, text] of texts)
    out.set(name, elementsOf(answers, { query: showing(text), nth: null }).slice(0, MAX_PLACES_PER_TEXT));
  return out;
}

/** Sets `proposal` on the missing fields whose old text exactly one element of the page now shows. */
export async function proposeBySameText(
  missing: TPageViewField[],
  fields: readonly TField[],
  pages: { now: string; before: string },
  config: TCapabilityConfig,
): Promise<void> {
  const texts = await textsBefore(missing, fields, pages.before, config);
  const places = await placesShowing(texts, pages.now, config);
  for (const view of missing) {
    const shown = places.get(view.name) ?? [];
    const text = texts.get(view.name);
    if (shown.length !== 1 || !text) continue;
    const anchored = await anchorElementInWorker(pages.now, shown[0] as number, config.fetch.page);
    const best = anchored.found ? anchored.anchors[0] : undefined;
    if (anchored.found && best) view.proposal = { element: anchored.element, text, where: best.words, why: null };
  }
}
