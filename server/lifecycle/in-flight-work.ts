/**
 * Work that must finish before the process exits even when no request waits for it — a refresh whose
 * page went away, a setup turn, a cron pass (docs/operations.md, "Start and stop"). A graceful shutdown stops taking
 * new requests, then waits here (bounded by SHUTDOWN_GRACE_MS) before it closes the database.
 * `shutdownSignal()` lets long loops stop starting new work once a shutdown began.
 *
 * Kept on globalThis: Next may load this module once per server bundle (instrumentation, each route),
 * and they must all see the same registry.
 */

type TWorkRegistry = { running: Map<number, string>; nextId: number; stopping: AbortController };

const globals = globalThis as { __bellwetherWork?: TWorkRegistry };
globals.__bellwetherWork ??= { running: new Map(), nextId: 1, stopping: new AbortController() };
const registry = globals.__bellwetherWork;

/** Runs `work`, counted as in flight until it settles. */
export async function trackWork<T>(label: string, work: () => Promise<T>): Promise<T> {
  const id = registry.nextId++;
  registry.running.set(id, label);
  try {
    return await work();
  } finally {
    registry.running.delete(id);
  }
}

/** Labels of the work in flight now, one per task. */
export function runningWork(): string[] {
  return [...registry.running.values()];
}

/** Aborted when a shutdown begins: loops that start work (claim passes) should stop starting more. */
export function shutdownSignal(): AbortSignal {
  return registry.stopping.signal;
}

export function beginShutdown(): void {
  registry.stopping.abort();
}
