/**
 * Chunking with overlap (docs/design.md §3 "chunked and indexed"): a unit's text is cut into pieces of about `size`
 * characters at a line or word boundary, each repeating the last `overlap` characters of the one before, so a
 * sentence cut at a boundary is still whole in one of them.
 */
export const CHUNK_SIZE = 1_200;
export const CHUNK_OVERLAP = 200;

export type TTextPiece = { text: string; start: number; end: number };

export function chunkText(text: string, size = CHUNK_SIZE, overlap = CHUNK_OVERLAP): TTextPiece[] {
  const pieces: TTextPiece[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      // Prefer a line break, then a space, in the last third of the window.
      const floor = start + Math.floor(size * 0.66);
      const newline = text.lastIndexOf("\n", end);
      const space = text.lastIndexOf(" ", end);
      if (newline > floor) end = newline + 1;
      else if (space > floor) end = space + 1;
    }
    const piece = text.slice(start, end);
    if (piece.trim()) pieces.push({ text: piece.trim(), start, end });
    if (end >= text.length) break;
    // Step back by the overlap, to a word start, but always forward.
    let next = Math.max(start + 1, end - overlap);
    const wordStart = text.indexOf(" ", next);
    if (wordStart !== -1 && wordStart < end) next = wordStart + 1;
    start = next;
  }
  return pieces;
}

/** 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
