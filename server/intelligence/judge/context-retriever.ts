import type { TContextChunk } from "../../context";
import type { TDeltas } from "../diff/diff-records";

export type { TContextChunk };

/**
 * The seam for a tracker's context files: the most relevant chunks (untrusted text, with their file and place) of
 * ONE tracker of ONE person for a query. The refresh retrieves once per run, only when deltas reach the judge; by
 * default from the database (server/context retrieveContextChunks: full-text search).
 */
export type TContextRetriever = (q: {
  userId: string;
  trackerId: string;
  query: string;
  limit: number;
}) => Promise<TContextChunk[]>;

/** No context (tests that pin the judge's input). */
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
