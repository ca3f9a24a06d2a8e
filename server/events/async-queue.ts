/**
 * The one push → pull bridge for every stream (SSE subscriptions, refresh progress, setup turns): producers
 * `push` values and `end` (optionally with an error); one consumer iterates. Iteration ends when the queue
 * ends or `signal` aborts; values pushed after that are dropped.
 */
export type TAsyncQueue<T> = AsyncIterable<T> & {
  push(value: T): void;
  end(error?: unknown): void;
  readonly ended: boolean;
};

export function createAsyncQueue<T>(opts: { signal?: AbortSignal; maxBuffered?: number } = {}): TAsyncQueue<T> {
  const buffer: T[] = [];
  const maxBuffered = opts.maxBuffered ?? 10_000;
  let ended = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const signalWake = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  opts.signal?.addEventListener("abort", () => queue.end(), { once: true });

  const queue: TAsyncQueue<T> = {
    push(value) {
      if (ended) return;
      // A consumer that stopped reading must not grow memory without bound: the oldest values go first.
      if (buffer.length >= maxBuffered) buffer.shift();
      buffer.push(value);
      signalWake();
    },
    end(error) {
      if (ended) return;
      ended = true;
      if (error !== undefined) failure = { error };
      signalWake();
    },
    get ended() {
      return ended;
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (buffer.length > 0) yield buffer.shift() as T;
        if (ended) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      if (failure) throw failure.error;
    },
  };
  return queue;
}
