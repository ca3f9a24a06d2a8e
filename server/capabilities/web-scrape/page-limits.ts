import { availableParallelism } from "node:os";

/** Limits for reading one page in a worker thread (docs/design.md §5: no page can stall the server). */
export type TPageLimits = {
  /** Wall time to read one page once a worker has it; over it the worker is terminated. */
  timeoutMs: number;
  /** Heap cap (old generation) of each worker, MB. */
  memoryMb: number;
  /** Worker threads in the process-wide pool (the first caller's value sizes the pool). */
  workers: number;
};

/**
 * Two workers, but always one core left for the event loop: on a 2-core machine two busy parsers
 * would starve the server's own thread (measured: health answers past 100 ms), so there it is one.
 */
export const DEFAULT_PAGE_WORKERS = Math.max(1, Math.min(2, availableParallelism() - 1));

export const DEFAULT_PAGE_LIMITS: TPageLimits = { timeoutMs: 10_000, memoryMb: 256, workers: DEFAULT_PAGE_WORKERS };
