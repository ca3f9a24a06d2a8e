/**
 * Politeness per host (docs/scheduling.md "Politeness per host"): at most `maxInFlight` calls to one host at once, at
 * least `minGapMs` between the starts of two calls to it, and a host that asked us to wait (429/503 + Retry-After) is
 * not asked again before then. In-process: each process keeps its own gate (the docs say how it would span workers).
 *
 * A call waits for its turn while the host moves; once it has waited `maxWaitMs` with no call to that host starting or
 * ending, it is answered "busy": a scheduler lane never sits behind a stuck host for long, whatever the other lanes
 * drew, while a long queue behind a host that answers keeps its turns. A call during a hold is answered "held" at once.
 */

export type THostGateClock = {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
};

export type THostGateOptions = {
  maxInFlight: number;
  minGapMs: number;
  /** How long a waiting call stays when its host makes no progress (no call to it starts or ends). */
  maxWaitMs: number;
  /** Longest a Retry-After may hold a host (absurd values are capped). */
  maxHoldMs?: number;
  clock?: THostGateClock;
};

/** The turn a call got: call `release()` once its request is over (success or not). */
export type THostPass = { ok: true; release(): void };
export type THostRefusal =
  | { ok: false; reason: "held"; until: number }
  | { ok: false; reason: "busy"; inFlight: number; waitedMs: number }
  | { ok: false; reason: "aborted" };

export type THostActivity = {
  host: string;
  inFlight: number;
  waiting: number;
  /** Calls started in the last minute. */
  lastMinute: number;
};

export type THostGateReport = {
  settings: { maxInFlight: number; minGapMs: number; maxWaitMs: number };
  /** Busiest first: in flight, then calls in the last minute. */
  busiest: THostActivity[];
  /** Hosts that asked us to wait, soonest free first. */
  held: { host: string; until: number }[];
};

export type THostGate = {
  acquire(host: string, signal?: AbortSignal): Promise<THostPass | THostRefusal>;
  /** Holds the host for `ms` (capped at maxHoldMs) from now: every call to it until then is refused. */
  hold(host: string, ms: number): void;
  /** When the host may be asked again, if it is held now. */
  heldUntil(host: string): number | null;
  report(limit?: number): THostGateReport;
};

export const DEFAULT_MAX_HOLD_MS = 60 * 60_000;
const WINDOW_MS = 60_000;

/**
 * Monotonic milliseconds on the wall clock's scale (the process's start plus the time since): gaps, waits and holds
 * are durations, and a wall-clock step (NTP, a VM resumed) must neither hold a host for longer nor let calls through
 * early. A hold's "until" read off it is a wall time as of the process's start, which is what /system and the deferred
 * runs' due times need.
 */
const realClock: THostGateClock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

type TWaiter = {
  resolve(answer: THostPass | THostRefusal): void;
  since: number;
  timer: unknown;
  onAbort?: () => void;
  signal?: AbortSignal;
};

type THostState = {
  inFlight: number;
  lastStartAt: number;
  holdUntil: number;
  /** When a call to it last started or ended: a waiter gives up only after maxWaitMs without this moving. */
  progressAt: number;
  waiters: TWaiter[];
  /** Start times within the last minute, oldest first (≤ 60 000 / minGapMs entries). */
  starts: number[];
  /** The timer that wakes the queue when the gap has passed. */
  wake: unknown;
};

export function createHostGate(options: THostGateOptions): THostGate {
  const clock = options.clock ?? realClock;
  const maxInFlight = Math.max(1, Math.floor(options.maxInFlight));
  const minGapMs = Math.max(0, options.minGapMs);
  const maxWaitMs = Math.max(0, options.maxWaitMs);
  const maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
  const hosts = new Map<string, THostState>();

  const stateOf = (host: string): THostState => {
    let state = hosts.get(host);
    if (!state) {
      state = {
        inFlight: 0,
        lastStartAt: Number.NEGATIVE_INFINITY,
        holdUntil: 0,
        progressAt: Number.NEGATIVE_INFINITY,
        waiters: [],
        starts: [],
        wake: undefined,
      };
      hosts.set(host, state);
    }
    return state;
  };

  const trim = (state: THostState, now: number) => {
    while (state.starts.length > 0 && (state.starts[0] ?? 0) <= now - WINDOW_MS) state.starts.shift();
  };

  // Hosts nobody asked for in a minute are forgotten, so the map stays the size of the recent traffic.
  const sweep = (now: number) => {
    for (const [host, state] of hosts) {
      trim(state, now);
      if (state.inFlight === 0 && state.waiters.length === 0 && state.starts.length === 0 && state.holdUntil <= now)
        hosts.delete(host);
    }
  };
  let calls = 0;

  const start = (state: THostState, now: number): THostPass => {
    state.inFlight++;
    state.lastStartAt = now;
    state.progressAt = now;
    state.starts.push(now);
    trim(state, now);
    let released = false;
    return {
      ok: true,
      release() {
        if (released) return;
        released = true;
        state.inFlight--;
        state.progressAt = clock.now();
        pump(state);
      },
    };
  };

  const settle = (waiter: TWaiter, answer: THostPass | THostRefusal) => {
    clock.clearTimeout(waiter.timer);
    if (waiter.onAbort) waiter.signal?.removeEventListener("abort", waiter.onAbort);
    waiter.resolve(answer);
  };

  // Hands turns to the waiters, oldest first, while a slot is free and the gap has passed; else waits for the gap.
  function pump(state: THostState): void {
    const now = clock.now();
    if (state.holdUntil > now) {
      for (const waiter of state.waiters.splice(0))
        settle(waiter, { ok: false, reason: "held", until: state.holdUntil });
      return;
    }
    while (state.waiters.length > 0 && state.inFlight < maxInFlight) {
      const due = state.lastStartAt + minGapMs;
      if (now < due) {
        if (state.wake === undefined)
          state.wake = clock.setTimeout(() => {
            state.wake = undefined;
            pump(state);
          }, due - now);
        return;
      }
      const waiter = state.waiters.shift() as TWaiter;
      settle(waiter, start(state, now));
    }
  }

  return {
    acquire(host, signal) {
      const now = clock.now();
      if (++calls % 256 === 0) sweep(now);
      if (signal?.aborted) return Promise.resolve({ ok: false, reason: "aborted" });
      const state = stateOf(host);
      if (state.holdUntil > now) return Promise.resolve({ ok: false, reason: "held", until: state.holdUntil });
      if (state.waiters.length === 0 && state.inFlight < maxInFlight && now >= state.lastStartAt + minGapMs)
        return Promise.resolve(start(state, now));
      return new Promise((resolve) => {
        const waiter: TWaiter = { resolve, since: now, timer: undefined };
        const leave = (answer: THostRefusal) => {
          const index = state.waiters.indexOf(waiter);
          if (index < 0) return;
          state.waiters.splice(index, 1);
          settle(waiter, answer);
        };
        // Busy once it has waited maxWaitMs with the host not moving; each start or end gives it maxWaitMs more.
        const check = () => {
          const stillMs = clock.now() - Math.max(waiter.since, state.progressAt);
          if (stillMs >= maxWaitMs)
            leave({ ok: false, reason: "busy", inFlight: state.inFlight, waitedMs: clock.now() - waiter.since });
          else waiter.timer = clock.setTimeout(check, maxWaitMs - stillMs);
        };
        waiter.timer = clock.setTimeout(check, maxWaitMs);
        if (signal) {
          waiter.signal = signal;
          waiter.onAbort = () => leave({ ok: false, reason: "aborted" });
          signal.addEventListener("abort", waiter.onAbort, { once: true });
        }
        state.waiters.push(waiter);
        pump(state);
      });
    },

    hold(host, ms) {
      if (!(ms > 0)) return;
      const state = stateOf(host);
      state.holdUntil = Math.max(state.holdUntil, clock.now() + Math.min(ms, maxHoldMs));
      pump(state);
    },

    heldUntil(host) {
      const until = hosts.get(host)?.holdUntil ?? 0;
      return until > clock.now() ? until : null;
    },

    report(limit = 5) {
      const now = clock.now();
      const busiest: THostActivity[] = [];
      const held: THostGateReport["held"] = [];
      for (const [host, state] of hosts) {
        trim(state, now);
        if (state.holdUntil > now) held.push({ host, until: state.holdUntil });
        if (state.inFlight > 0 || state.waiters.length > 0 || state.starts.length > 0)
          busiest.push({
            host,
            inFlight: state.inFlight,
            waiting: state.waiters.length,
            lastMinute: state.starts.length,
          });
      }
      busiest.sort((a, b) => b.inFlight - a.inFlight || b.lastMinute - a.lastMinute || a.host.localeCompare(b.host));
      held.sort((a, b) => a.until - b.until);
      return {
        settings: { maxInFlight, minGapMs, maxWaitMs },
        busiest: busiest.slice(0, limit),
        held: held.slice(0, limit),
      };
    },
  };
}

/** The host a web address's calls are gated by (`host` with its port, lowercase); null for what is not an address. */
export function hostOfUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.host.toLowerCase() : null;
  } catch {
    return null;
  }
}
