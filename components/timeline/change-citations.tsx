import type { TChangeCitation } from "@/contracts/timeline";

/**
 * Under a field's reason: the context-file excerpts behind it (docs/context-files.md) — "because: price-list.pdf, p. 2 — ‘our
 * price is 10.00’" when the judge or a context rule cited them, "see: …" when they were only listed beside a change
 * left to the person (rules mode). The quotes are copies, so they read the same after the file is deleted.
 */
export function ChangeCitations({ field, citations }: { field: string; citations?: readonly TChangeCitation[] }) {
  const mine = (citations ?? []).filter((c) => c.fields.includes(field));
  if (mine.length === 0) return null;
  return (
    <ul className="mt-0.5 space-y-0.5 text-xs text-stone-700 dark:text-stone-300" data-testid="change-citations">
      {mine.map((c) => (
        <li key={`${c.fileId}:${c.chunkId ?? c.location}`} data-testid="change-citation" data-cited={c.cited}>
          <span className="font-medium">{c.cited ? "because:" : "see:"}</span> {c.fileName}, {c.location} — ‘{c.quote}’
        </li>
      ))}
    </ul>
  );
}
