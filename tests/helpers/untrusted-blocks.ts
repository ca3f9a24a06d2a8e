import { UNTRUSTED_BEGIN, UNTRUSTED_CONTENT_RULES, UNTRUSTED_END } from "@/server/ai";

export type TUntrustedBlock = { id: string; source: string; body: string };

const BEGIN_LINE = /<<<BEGIN UNTRUSTED DATA id=([0-9a-f]{16}) source="([^"\n]*)">>>\n/g;

/**
 * Reads a prompt the way UNTRUSTED_CONTENT_RULES tells the model to: a block runs from a begin line to
 * the first end line carrying the same id. Returns the blocks and the text outside every block (what
 * the model may treat as instructions). Throws on a begin line without its end line.
 */
export function parseUntrustedBlocks(prompt: string): { blocks: TUntrustedBlock[]; outside: string } {
  const blocks: TUntrustedBlock[] = [];
  let outside = "";
  let cursor = 0;
  BEGIN_LINE.lastIndex = 0;
  for (let begin = BEGIN_LINE.exec(prompt); begin; begin = BEGIN_LINE.exec(prompt)) {
    const [line, id = "", source = ""] = begin;
    const endLine = `\n${UNTRUSTED_END} id=${id}>>>`;
    const bodyStart = begin.index + line.length;
    const end = prompt.indexOf(endLine, bodyStart);
    if (end < 0) throw new Error(`block ${id} is never closed`);
    outside += prompt.slice(cursor, begin.index);
    blocks.push({ id, source, body: prompt.slice(bodyStart, end) });
    cursor = end + endLine.length;
    BEGIN_LINE.lastIndex = cursor;
  }
  outside += prompt.slice(cursor);
  return { blocks, outside };
}

export function countOccurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/**
 * Every marker in the prompt is one of the real blocks' own lines (or the rules that describe them,
 * when a prompt embeds its instructions): nothing forged survived.
 */
export function expectWellFormedBlocks(prompt: string): { blocks: TUntrustedBlock[]; outside: string } {
  const parsed = parseUntrustedBlocks(prompt);
  const bodies = parsed.blocks.map((b) => b.body).join("\n");
  const outsideRules = parsed.outside.split(UNTRUSTED_CONTENT_RULES).join("");
  const problems: string[] = [];
  for (const marker of [UNTRUSTED_BEGIN, UNTRUSTED_END]) {
    if (bodies.includes(marker) || outsideRules.includes(marker)) problems.push(`stray ${marker}`);
  }
  for (const block of parsed.blocks) {
    if (block.body.includes("<<<") || block.body.includes(">>>")) problems.push(`block ${block.id} holds <<< or >>>`);
  }
  if (problems.length > 0) throw new Error(`malformed untrusted blocks: ${problems.join(", ")}`);
  return parsed;
}
