import type { TContextValue } from "@/contracts/definition/context-rule-schema";
import type { TDb, TTx } from "../db";

/** A bound value as read now, with where it was found (for the reason and the change's citation). */
export type TResolvedContextValue = {
  value: number;
  fileId: string;
  fileName: string;
  location: string;
  quote: string;
  /**
   * Set when the file no longer gives it — deleted, or replaced by one that does not state it — and this is the value
   * it gave last, kept for the locked version that read it (kept-context-values.ts). `since`: when (ISO), if known.
   */
  kept?: { reason: "removed" | "replaced"; since: string | null };
};

const NUMBER = String.raw`[-+]?\d[\d,]*(?:\.\d+)?`;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Reads the definition's bound values from the tracker's context files (owner and tracker in the WHERE clause), for
 * code rules (docs/context-files.md, "Values bound by code"). A labelled line: the label, then optionally "is" / ":" / "=" and a currency sign or code,
 * then the number ("our price is 10.00", "Our price: $10.00"). A CSV cell: the row whose first cell is the label,
 * the column whose header is `column`. Case-insensitive; thousands separators are commas. The newest matching file
 * wins; a value no file states is null (its rules then leave the field to its own rule). Deterministic, no model.
 */
export async function resolveContextValues(
  db: TDb | TTx,
  input: { userId: string; trackerId: string; values: readonly TContextValue[] },
): Promise<Record<string, TResolvedContextValue | null>> {
  if (input.values.length === 0) return {};
  const files = await db.contextFile.findMany({
    where: { userId: input.userId, trackerId: input.trackerId },
    select: {
      id: true,
      name: true,
      kind: true,
      text: true,
      chunks: { select: { location: true, text: true }, orderBy: { ordinal: "asc" } },
    },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
  });
  const out: Record<string, TResolvedContextValue | null> = {};
  for (const binding of input.values) {
    out[binding.name] = null;
    const candidates = binding.file ? files.filter((f) => f.name.toLowerCase() === binding.file?.toLowerCase()) : files;
    for (const file of candidates) {
      const found =
        binding.column && file.kind === "csv"
          ? await readCsvCell(file.text, binding.label, binding.column)
          : readLabelledLine(file.chunks, binding.label);
      if (found) {
        out[binding.name] = { ...found, fileId: file.id, fileName: file.name };
        break;
      }
    }
  }
  return out;
}

function toNumber(text: string): number | null {
  const n = Number(text.replace(/,/g, ""));
  return Number.isFinite(n) ? n : null;
}

/** The first number stated after `label` on a line of `text` ("our price is 10.00", "Our price: $10.00"). */
export function findLabelledNumber(text: string, label: string): { value: number; quote: string } | null {
  const pattern = new RegExp(
    String.raw`(?:^|[^\p{L}\p{N}])${escapeRe(label)}\s*(?:is|are|=|:|-|–)?\s*(?:[A-Z]{3}\s*|[$€£¥₹]\s*)?(${NUMBER})`,
    "iu",
  );
  for (const line of text.split("\n")) {
    const match = pattern.exec(line);
    const value = match?.[1] ? toNumber(match[1]) : null;
    if (value !== null) return { value, quote: line.trim().slice(0, 200) };
  }
  return null;
}

function readLabelledLine(
  chunks: readonly { location: string; text: string }[],
  label: string,
): { value: number; location: string; quote: string } | null {
  for (const chunk of chunks) {
    const found = findLabelledNumber(chunk.text, label);
    if (found) return { ...found, location: chunk.location };
  }
  return null;
}

/** The person's files on their tracker, name and extracted text, newest first (for setup's proposals). */
export async function listContextTexts(
  db: TDb | TTx,
  input: { userId: string; trackerId: string },
): Promise<{ name: string; text: string }[]> {
  return db.contextFile.findMany({
    where: { userId: input.userId, trackerId: input.trackerId },
    select: { name: true, text: true },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
  });
}

async function readCsvCell(
  text: string,
  rowLabel: string,
  column: string,
): Promise<{ value: number; location: string; quote: string } | null> {
  const { default: Papa } = await import("papaparse");
  const rows = Papa.parse<string[]>(text.trim(), { skipEmptyLines: "greedy" }).data;
  const header = rows[0] ?? [];
  const col = header.findIndex((h) => h.trim().toLowerCase() === column.trim().toLowerCase());
  if (col < 0) return null;
  const rowIndex = rows.findIndex((r, i) => i > 0 && r[0]?.trim().toLowerCase() === rowLabel.trim().toLowerCase());
  const cell = rows[rowIndex]?.[col];
  const value = cell === undefined ? null : toNumber(cell.trim().replace(/^[A-Z]{3}\s*|^[$€£¥₹]\s*/i, ""));
  if (value === null) return null;
  return {
    value,
    location: `row ${rowIndex + 1}, ${header[col]?.trim()}`,
    quote: `${rows[rowIndex]?.[0]?.trim()} — ${header[col]?.trim()}: ${cell?.trim()}`,
  };
}
