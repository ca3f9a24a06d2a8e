import { z } from "zod";

/**
 * A refresh as the page and the API see it (docs/refresh.md): its steps as they run, and its answer. Client-safe;
 * the server's refresh (server/intelligence/refresh/) produces exactly these.
 */

export const ZRunStepSchema = z.object({
  step: z.enum(["lease", "crawl", "precheck", "fill", "diff", "judge", "append"]),
  status: z.enum(["ok", "skipped", "failed"]),
  ms: z.number(),
  detail: z.string().optional(),
});
export type TRunStep = z.infer<typeof ZRunStepSchema>;

/** Live progress: a step starting ("running") or finished (its run-record entry). */
export type TRunStepEvent = TRunStep | { step: TRunStep["step"]; status: "running"; ms: 0 };

export type TRefreshOutcome = "unchanged" | "noise" | "notable" | "material" | "baseline" | "in_flight" | "interrupted";

export type TRefreshResult = {
  runId: string;
  status: "completed" | "failed" | "skipped" | "running";
  outcome: TRefreshOutcome | null;
  /** One line for people: "no change", "noise: rating 4.4→4.3", "material: …", "failed: …". */
  summary: string;
  modelCalls: number;
  error: { code: string; message: string; retryable: boolean } | null;
  /** True when an earlier run with the same idempotency key answered and nothing was done now. */
  replayed: boolean;
};

/** What a finished check said, as the live tracker page hears it. */
export type TCheckOutcome = "unchanged" | "noise" | "notable" | "material" | "baseline" | "failed";
