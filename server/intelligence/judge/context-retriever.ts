import type { TDeltas } from "../diff/diff-records";

/**
 * The seam for a tracker's context files: returns the most relevant chunks (untrusted text) for a
 * query. The judge's caller retrieves once per run and passes the chunks in `context`.
 */
export type TContextRetriever = (q: { trackerId: string; query: string; limit: number }) => Promise<string[]>;

/** The default until context files land: no context. */
export const retrieveNoContext: TContextRetriever = async () => [];

/** A retrieval query for the undecided deltas: the decision plus the changed fields and new values. */
export function contextQueryFor(decision: string, deltas: TDeltas): string {
  const parts = [decision];
  for (const [name, delta] of Object.entries(deltas)) {
    const to = typeof delta.to === "string" ? delta.to.slice(0, 200) : JSON.stringify(delta.to);
    parts.push(`${name.replace(/_/g, " ")}: ${to}`);
  }
  return parts.join("\n").slice(0, 2_000);
}
