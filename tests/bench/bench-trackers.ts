import type { TLogger } from "@/server/logger";
import type { TRecordingInput } from "../fixtures/model-server/recordings";
import { RATINGS } from "./pages";

/**
 * The tracker the refresh and peer benchmarks refresh over the bench pages (pages.ts): one extractor
 * field (code) + one model-filled field, with numeric materiality rules for both.
 */
export const BENCH_DEFINITION = {
  fields: [
    {
      name: "price",
      type: "money",
      currency: "USD",
      description: "Pro plan monthly price",
      extractor: { kind: "css", selector: "#price" },
    },
    { name: "rating", type: "number", description: "Average customer rating out of 5" },
  ],
  identityRule: { kind: "canonical_url" },
  materiality: { price: { kind: "numeric", relative: 0.05 }, rating: { kind: "numeric", absolute: 0.2 } },
};

export const BENCH_DECISION = "Is this competitor undercutting our Pro plan?";

/** The fixture model reads the rating off the page (by matching it in the prompt), like a real filler would. */
export function fillRecordings(latencyMs: number): TRecordingInput[] {
  return RATINGS.map((rating) => ({
    name: `fill rating ${rating.toFixed(1)}`,
    match: { schemaName: "tracker_record", userRegex: `Rated ${rating.toFixed(1).replace(".", "\\.")} out of 5` },
    response: {
      json: { rating, notable_signals: [] },
      usage: { promptTokens: 9000, completionTokens: 20 },
      ...(latencyMs > 0 ? { latencyMs } : {}),
    },
  }));
}

/** Keeps refresh warnings out of the report; the benchmark counts them instead. */
export function quietLogger(sink: string[]): TLogger {
  const log: TLogger = {
    debug: () => {},
    info: () => {},
    warn: (msg, fields) => void sink.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    error: (msg, fields) => void sink.push(`${msg} ${JSON.stringify(fields ?? {})}`),
    child: () => log,
  };
  return log;
}
