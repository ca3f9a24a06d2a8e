/** Limits for reading one page in a worker thread (DESIGN §5: no page can stall the server). */
export type TPageLimits = {
  /** Wall time to read one page once a worker has it; over it the worker is terminated. */
  timeoutMs: number;
  /** Heap cap (old generation) of each worker, MB. */
  memoryMb: number;
  /** Worker threads in the process-wide pool (the first caller's value sizes the pool). */
  workers: number;
};

export const DEFAULT_PAGE_LIMITS: TPageLimits = { timeoutMs: 10_000, memoryMb: 256, workers: 2 };
