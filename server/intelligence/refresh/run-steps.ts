import type { TRunStep, TRunStepEvent } from "@/contracts/refresh-run";

export { type TRunStep, type TRunStepEvent, ZRunStepSchema } from "@/contracts/refresh-run";

export type TOnStep = (event: TRunStepEvent) => void;

/**
 * Collects per-step timings and outcomes for the run record. `onStep` (optional) hears each step as it
 * starts and ends; it is an observer only — whatever it throws is ignored, so it cannot change a run.
 */
export function createStepRecorder(clock: () => number = () => performance.now(), onStep?: TOnStep) {
  const steps: TRunStep[] = [];
  const emit = (event: TRunStepEvent) => {
    try {
      onStep?.(event);
    } catch {
      // Progress is best effort.
    }
  };
  const record = (entry: TRunStep) => {
    steps.push(entry);
    emit(entry);
  };
  return {
    steps,
    record,
    /** Announces a step that is recorded elsewhere (the append, inside the final transaction). */
    start(step: TRunStep["step"]) {
      emit({ step, status: "running", ms: 0 });
    },
    /** Reports a finished step without adding it to `steps` (the final write records it itself). */
    announce(entry: TRunStep) {
      emit(entry);
    },
    async time<T>(
      step: TRunStep["step"],
      work: () => Promise<T>,
      detail?: (value: T) => string | undefined,
    ): Promise<T> {
      emit({ step, status: "running", ms: 0 });
      const started = clock();
      try {
        const value = await work();
        const text = detail?.(value);
        record({ step, status: "ok", ms: Math.round(clock() - started), ...(text ? { detail: text } : {}) });
        return value;
      } catch (error) {
        record({ step, status: "failed", ms: Math.round(clock() - started), detail: errorMessage(error) });
        throw error;
      }
    },
    skip(step: TRunStep["step"], detail: string) {
      record({ step, status: "skipped", ms: 0, detail });
    },
  };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
