import { describe, expect, it } from "vitest";
import {
  createHostGate,
  hostOfUrl,
  type THostGateClock,
  type THostPass,
  type THostRefusal,
} from "@/server/lib/host-gate";

/** A clock the test moves by hand; its timers fire in time order as it moves. */
function manualClock(start = 1_000_000) {
  let now = start;
  let nextId = 1;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  const clock: THostGateClock & { advance(ms: number): Promise<void> } = {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimeout(id) {
      timers = timers.filter((t) => t.id !== id);
    },
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at || a.id - b.id);
        const due = timers[0];
        if (!due || due.at > target) break;
        timers.shift();
        now = due.at;
        due.fn();
        await flush();
      }
      now = target;
      await flush();
    },
  };
  return clock;
}

/** Tracks whether a pending acquire has answered yet. */
function watch(answer: Promise<THostPass | THostRefusal>) {
  const seen: { value?: THostPass | THostRefusal } = {};
  void answer.then((value) => {
    seen.value = value;
  });
  return seen;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("host gate", () => {
  it("lets at most maxInFlight calls to one host run at once; a release lets the next one in", async () => {
    const clock = manualClock();
    const gate = createHostGate({ maxInFlight: 2, minGapMs: 0, maxWaitMs: 60_000, clock });
    const first = await gate.acquire("a.test");
    const second = await gate.acquire("a.test");
    expect(first.ok && second.ok).toBe(true);
    const third = watch(gate.acquire("a.test"));
    await flush();
    expect(third.value).toBeUndefined();
    expect(gate.report().busiest[0]).toMatchObject({ host: "a.test", inFlight: 2, waiting: 1 });
    // Another host is not held up by a full one.
    expect((await gate.acquire("b.test")).ok).toBe(true);
    if (first.ok) first.release();
    await flush();
    expect(third.value?.ok).toBe(true);
    expect(gate.report().busiest.find((h) => h.host === "a.test")).toMatchObject({ inFlight: 2, waiting: 0 });
  });

  it("keeps at least minGapMs between the starts of two calls to one host", async () => {
    const clock = manualClock();
    const gate = createHostGate({ maxInFlight: 10, minGapMs: 250, maxWaitMs: 60_000, clock });
    const starts: number[] = [];
    const all = Array.from({ length: 4 }, () =>
      gate.acquire("a.test").then((p) => {
        if (p.ok) starts.push(clock.now());
        return p;
      }),
    );
    await flush();
    expect(starts).toEqual([1_000_000]);
    await clock.advance(249);
    expect(starts).toHaveLength(1);
    await clock.advance(1);
    expect(starts).toEqual([1_000_000, 1_000_250]);
    await clock.advance(500);
    expect(starts).toEqual([1_000_000, 1_000_250, 1_000_500, 1_000_750]);
    expect((await Promise.all(all)).every((p) => p.ok)).toBe(true);
    // The gap is per host: another host starts at once.
    const other = watch(gate.acquire("b.test"));
    await flush();
    expect(other.value?.ok).toBe(true);
  });

  it("holds a host after a Retry-After: calls fail fast until then, other hosts go on, then it opens", async () => {
    const clock = manualClock();
    const gate = createHostGate({ maxInFlight: 1, minGapMs: 0, maxWaitMs: 60_000, clock });
    const busy = await gate.acquire("a.test");
    const waiting = watch(gate.acquire("a.test"));
    gate.hold("a.test", 30_000);
    await flush();
    // The one already waiting is answered too: no request goes out during the hold.
    expect(waiting.value).toEqual({ ok: false, reason: "held", until: 1_030_000 });
    expect(await gate.acquire("a.test")).toEqual({ ok: false, reason: "held", until: 1_030_000 });
    expect(gate.heldUntil("a.test")).toBe(1_030_000);
    expect((await gate.acquire("b.test")).ok).toBe(true);
    expect(gate.report().held).toEqual([{ host: "a.test", until: 1_030_000 }]);
    if (busy.ok) busy.release();
    await clock.advance(29_999);
    expect((await gate.acquire("a.test")).ok).toBe(false);
    await clock.advance(1);
    expect((await gate.acquire("a.test")).ok).toBe(true);
    expect(gate.heldUntil("a.test")).toBeNull();
    expect(gate.report().held).toEqual([]);
  });

  it("caps an absurd hold, never shortens a longer one, and ignores a zero or negative one", async () => {
    const clock = manualClock();
    const gate = createHostGate({ maxInFlight: 2, minGapMs: 0, maxWaitMs: 1000, maxHoldMs: 3_600_000, clock });
    gate.hold("a.test", 365 * 86_400_000);
    expect(gate.heldUntil("a.test")).toBe(1_000_000 + 3_600_000);
    gate.hold("a.test", 10_000);
    expect(gate.heldUntil("a.test")).toBe(1_000_000 + 3_600_000);
    gate.hold("b.test", 0);
    gate.hold("b.test", -5);
    expect(gate.heldUntil("b.test")).toBeNull();
  });

  it("answers busy after maxWaitMs instead of keeping a caller behind a slow host", async () => {
    const clock = manualClock();
    const gate = createHostGate({ maxInFlight: 1, minGapMs: 0, maxWaitMs: 5000, clock });
    await gate.acquire("slow.test"); // never released: a request that takes forever
    const waiting = watch(gate.acquire("slow.test"));
    await clock.advance(4999);
    expect(waiting.value).toBeUndefined();
    await clock.advance(1);
    expect(waiting.value).toEqual({ ok: false, reason: "busy", inFlight: 1, waitedMs: 5000 });
    expect(gate.report().busiest[0]).toMatchObject({ host: "slow.test", inFlight: 1, waiting: 0 });
  });

  it("keeps a long queue waiting while its host moves: busy means the host stood still for maxWaitMs", async () => {
    const clock = manualClock();
    const gate = createHostGate({ maxInFlight: 1, minGapMs: 0, maxWaitMs: 1000, clock });
    let current = await gate.acquire("a.test");
    const queue = [0, 1, 2].map(() => watch(gate.acquire("a.test")));
    // Each answer takes 800 ms: the last in the queue waits 2.4 s, far over maxWaitMs, and still gets its turn.
    for (const waiting of queue) {
      await clock.advance(800);
      if (current.ok) current.release();
      await flush();
      expect(waiting.value?.ok).toBe(true);
      current = waiting.value as THostPass;
    }
    // A host that stops answering: the next caller gives up after maxWaitMs of nothing moving.
    const stuck = watch(gate.acquire("a.test"));
    await clock.advance(999);
    expect(stuck.value).toBeUndefined();
    await clock.advance(1);
    expect(stuck.value).toMatchObject({ ok: false, reason: "busy", waitedMs: 1000 });
  });

  it("lets an aborted caller leave the queue", async () => {
    const clock = manualClock();
    const gate = createHostGate({ maxInFlight: 1, minGapMs: 0, maxWaitMs: 5000, clock });
    await gate.acquire("a.test");
    const controller = new AbortController();
    const waiting = watch(gate.acquire("a.test", controller.signal));
    controller.abort();
    await flush();
    expect(waiting.value).toEqual({ ok: false, reason: "aborted" });
    expect(gate.report().busiest[0]?.waiting).toBe(0);
  });

  it("reports the busiest hosts by calls in flight, then calls in the last minute", async () => {
    const clock = manualClock();
    const gate = createHostGate({ maxInFlight: 5, minGapMs: 0, maxWaitMs: 5000, clock });
    for (let i = 0; i < 3; i++) {
      const p = await gate.acquire("many.test");
      if (p.ok) p.release();
    }
    await gate.acquire("open.test");
    expect(gate.report().busiest).toEqual([
      { host: "open.test", inFlight: 1, waiting: 0, lastMinute: 1 },
      { host: "many.test", inFlight: 0, waiting: 0, lastMinute: 3 },
    ]);
    expect(gate.report(1).busiest).toHaveLength(1);
    await clock.advance(60_000);
    expect(gate.report().busiest).toEqual([{ host: "open.test", inFlight: 1, waiting: 0, lastMinute: 0 }]);
  });
});

describe("hostOfUrl", () => {
  it("is the address's host and port, lowercase; nothing for what is not a web address", () => {
    expect(hostOfUrl("https://Shop.Example.com/a?b=1")).toBe("shop.example.com");
    expect(hostOfUrl("http://127.0.0.1:4020/menu")).toBe("127.0.0.1:4020");
    expect(hostOfUrl("https://places.googleapis.com")).toBe("places.googleapis.com");
    expect(hostOfUrl("ftp://example.com/x")).toBeNull();
    expect(hostOfUrl("not a url")).toBeNull();
  });
});
