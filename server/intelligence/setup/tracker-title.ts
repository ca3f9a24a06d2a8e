/**
 * A tracker's title is its decision in one line — the agent's wording, or in rules mode a cleaned-up sentence of
 * the person's first message — never the raw message with the address in it (a raw message left drafts titled
 * "watch https://…"). The migration `*_clean_setup_tracker_titles` applies the same steps
 * in SQL to titles stored before; tests/integration/tracker-titles.test.ts holds both to the same examples, so keep
 * them in step.
 */

export const TITLE_MAX_CHARS = 120;

/**
 * An address with the connector in front of it ("at https://…", "via: www.…") up to its last character that is not
 * punctuation (the "?" after it stays), or a place id; removed whole.
 */
const ADDRESS_RE =
  /\s*(?:\b(?:at|from|via)\b\s*:?\s*)?(?:https?:\/\/|www\.)[^\s<>"'`)\]]*[^\s<>"'`)\].,;:!?]|\s*\b(?:place[\s_-]?id\s*[:=]?\s*)?ChIJ[0-9A-Za-z_-]{10,}/gi;

/** Words with a letter in them. */
const wordCount = (text: string) => text.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;

/**
 * The title in a message: addresses and place ids removed, whitespace collapsed (none before punctuation), the first sentence with at least
 * three words (else the first sentence), stray punctuation and a final full stop trimmed, capitalised, at most
 * TITLE_MAX_CHARS (cut at a word). Null when less than two words (of three letters in all) are left: "https://x"
 * alone, or "Watch https://x".
 */
export function titleFromMessage(message: string): string | null {
  const text = message
    .replace(ADDRESS_RE, " ")
    .replace(/[([{<]\s*[)\]}>]/g, " ")
    .replace(/\s+/g, " ")
    .replace(/ ([.,;:!?])/g, "$1")
    .trim();
  const sentences = text.split(/(?<=[.!?])\s+/);
  const sentence = sentences.find((s) => wordCount(s) >= 3) ?? sentences[0] ?? "";
  const trimmed = sentence.replace(/^[\s"'“”‘’:;,.!?\-–—]+/, "").replace(/[\s"'“”‘’:;,.\-–—([{]+$/, "");
  if ((trimmed.match(/\p{L}/gu)?.length ?? 0) < 3 || wordCount(trimmed) < 2) return null;
  return truncateAtWord(trimmed.charAt(0).toUpperCase() + trimmed.slice(1));
}

/** At most TITLE_MAX_CHARS: the last whole word that fits, then "…". */
function truncateAtWord(text: string): string {
  if (text.length <= TITLE_MAX_CHARS) return text;
  const cut = text
    .slice(0, TITLE_MAX_CHARS - 1)
    .replace(/\s+\S*$/, "")
    .replace(/[\s,;:\-–—]+$/, "");
  return `${cut}…`;
}

/** The host of a page address ("shop.example"), or null. */
function hostOf(input: unknown): string | null {
  const url = (input as { url?: unknown } | null)?.url;
  if (typeof url !== "string") return null;
  try {
    return new URL(url).hostname.replace(/^www\./, "") || null;
  } catch {
    return null;
  }
}

/**
 * The title a new tracker gets: the agent's proposal, else the person's message, each cleaned; else "Watch" and
 * what the sample says it is (the page's title, the place's name), else the page's host, else "this place" (a place
 * without a name: its id is not a title).
 */
export function trackerTitle(input: {
  proposed?: string | null | undefined;
  message: string;
  sampleName?: string | null | undefined;
  capabilityInput: unknown;
}): string {
  const fromText = (input.proposed ? titleFromMessage(input.proposed) : null) ?? titleFromMessage(input.message);
  if (fromText) return fromText;
  const name = input.sampleName?.replace(/\s+/g, " ").trim();
  return truncateAtWord(`Watch ${name || hostOf(input.capabilityInput) || "this place"}`);
}
