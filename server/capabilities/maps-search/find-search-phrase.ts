/**
 * Rules mode's spotting of a place search in a message (docs/capabilities.md, `target.find`): the clause that holds
 * a point with a location word — "near 51.52,-0.08", "within 2 km of 51.52,-0.08" — from the words before it to the
 * end of the clause, e.g. "coffee near 51.52,-0.08 within 2 km" out of "Is anyone new competing with us? Watch coffee
 * near 51.52,-0.08 within 2 km." A bare pair of numbers is not enough (a price list has those); what is found is
 * checked by the input schema, whose refusal (a latitude out of range, a radius too large) is said in words.
 */

const PAIR = String.raw`[-+]?\d{1,3}(?:\.\d+)?\s*,\s*[-+]?\d{1,3}(?:\.\d+)?`;
const UNIT = "km|kilomet(?:re|er)s?|m|met(?:re|er)s?|mi|miles?";
const WHERE = new RegExp(
  String.raw`\b(?:(?:near|around|close\s+to)\s+${PAIR}|within\s+(?:a\s+)?\d+(?:\.\d+)?\s*(?:${UNIT})(?:\s+radius)?\s+(?:of|from|around)\s+${PAIR})(?![\w.])`,
  "i",
);

/** Where a clause ends: sentence marks, brackets, quotes and new lines; a full stop only before a space (not 51.52). */
const END = /[?!;:()"“”\n]|\.(?=\s|$)/g;
/** Before the point, a comma ends a clause too ("Hey, any new coffee near …"); after it, the radius may follow. */
const START = /[?!;:()"“”\n,]|\.(?=\s)/g;

/** The words that ask for a search rather than name what to look for ("watch", "tell me when", "any new"). */
const ASK =
  /^.*\b(?:watch|track|monitor|follow|search(?:\s+for)?|find|look(?:ing)?\s+for|about|list|show\s+me|(?:tell|let)\s+me\s+(?:when|if|whether))\s+/i;
const FILLER = /^(?:(?:any|all|new|other|more|the|a|an|for|of|me|us)\s+)+/i;
/** "… a new coffee shop opens near …": what happens to the place is the decision's, not the search's. */
const HAPPENS = /\s+(?:opens?|opened|appears?|shows?\s+up|is|are)$/i;

function lastEnd(text: string, before: number): number {
  let at = -1;
  for (const m of text.slice(0, before).matchAll(START)) at = m.index + m[0].length;
  return Math.max(at, 0);
}

function firstEnd(text: string, from: number): number {
  END.lastIndex = from;
  const m = END.exec(text);
  return m ? m.index : text.length;
}

export function findSearchPhrase(text: string): string | null {
  const where = WHERE.exec(text);
  if (!where) return null;
  const end = where.index + where[0].length;
  let what = text.slice(lastEnd(text, where.index), where.index).trim();
  what = what.replace(ASK, "");
  // Leave the last word even if it is a filler ("the new near 51.5,0.1" reads "new"): the parser then refuses it.
  if (what.replace(FILLER, "")) what = what.replace(FILLER, "");
  if (what.replace(HAPPENS, "")) what = what.replace(HAPPENS, "");
  const rest = text.slice(end, firstEnd(text, end)).replace(/,.*$/s, "");
  const phrase = `${what} ${where[0]}${rest}`.replace(/\s+/g, " ").trim();
  return phrase || null;
}
