import { z } from "zod";

export const ZRunStepSchema = z.object({
  step: z.enum(["lease", "crawl", "precheck", "fill", "diff", "judge", "append"]),
  status: z.enum(["ok", "skipped", "failed"]),
  ms: z.number(),
  detail: z.string().optional(),
});
export type TRunStep = z.infer<typeof ZRunStepSchema>;

/** Collects per-step timings and outcomes for the run record. */
export function createStepRecorder(clock: () => number = () => performance.now()) {
  const steps: TRunStep[] = [];
  return {
    steps,
    async time<T>(
      step: TRunStep["step"],
      work: () => Promise<T>,
      detail?: (value: T) => string | undefined,
    ): Promise<T> {
      const started = clock();
      try {
        const value = await work();
        const text = detail?.(value);
        steps.push({ step, status: "ok", ms: Math.round(clock() - started), ...(text ? { detail: text } : {}) });
        return value;
      } catch (error) {
        steps.push({ step, status: "failed", ms: Math.round(clock() - started), detail: errorMessage(error) });
        throw error;
      }
    },
    skip(step: TRunStep["step"], detail: string) {
      steps.push({ step, status: "skipped", ms: 0, detail });
    },
  };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
