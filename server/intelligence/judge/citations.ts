import type { TChangeCitation } from "@/contracts/timeline";
import type { TContextChunk } from "./context-retriever";
import type { TJudgeVerdict } from "./schema";

export const MAX_QUOTE_CHARS = 200;

/**
 * What a change row records of the context it was judged with (docs/context-files.md): every excerpt the judge saw, with the
 * fields that cited it (`cited: true`) or, when none did, the fields it was consulted for (`cited: false` — rules
 * mode lists them beside the ambiguous change for the person to judge). The quote is copied: the model's own quote
 * when it really is in the excerpt, else the excerpt's line that shares most words with the query.
 */
export function buildCitations(input: {
  chunks: readonly TContextChunk[];
  verdicts: Record<string, TJudgeVerdict>;
  fields: readonly string[];
  query: string;
}): TChangeCitation[] {
  return input.chunks.map((chunk) => {
    const citing = input.fields.filter((f) => input.verdicts[f]?.cites?.some((c) => c.chunkId === chunk.id));
    const modelQuote = citing
      .flatMap((f) => input.verdicts[f]?.cites ?? [])
      .find((c) => c.chunkId === chunk.id && c.quote && containsQuote(chunk.text, c.quote))?.quote;
    return {
      fileId: chunk.fileId,
      fileName: chunk.fileName,
      chunkId: chunk.id,
      location: chunk.location,
      quote: clip(modelQuote ?? bestLine(chunk.text, input.query)),
      fields: citing.length > 0 ? citing : [...input.fields],
      cited: citing.length > 0,
    };
  });
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** The model may only quote what the excerpt says (whitespace and case aside). */
export function containsQuote(text: string, quote: string): boolean {
  const q = squash(quote);
  return q.length > 0 && squash(text).includes(q);
}

function words(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}.,]*/gu) ?? []);
}

/** The excerpt's line (or sentence) sharing most words with the query; the first one on a tie. */
export function bestLine(text: string, query: string): string {
  const wanted = words(query);
  const lines = text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((l) => l.trim())
    .filter(Boolean);
  let best = lines[0] ?? text;
  let score = -1;
  for (const line of lines) {
    let s = 0;
    for (const w of words(line)) if (wanted.has(w)) s++;
    if (s > score) {
      best = line;
      score = s;
    }
  }
  return best;
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > MAX_QUOTE_CHARS ? `${one.slice(0, MAX_QUOTE_CHARS - 1)}…` : one;
}
