import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { encodeJson, type TEncodedJson } from "../../lib/encode-json";
import { CapabilityFailure } from "../envelope";
import type { TFeedParse } from "../feed-items/parse-feed";
import type { TAnchoredElement } from "./anchor-element";
import type { TCssAnswer, TCssQuery } from "./css-query";
import type { TDetectedListing, TListingOptions, TListingPlan } from "./listing";
import type { TPageLimits } from "./page-limits";
import type { TPageSnapshot, TStampedSnapshot } from "./page-snapshot";
import {
  describeTask,
  type TReadListingResult,
  type TWorkerFailure,
  type TWorkerResult,
  type TWorkerTask,
} from "./page-tasks";
import type { TPageResult, TPageTask } from "./understand-page";

/**
 * A small pool of worker threads that read untrusted pages (docs/design.md §5: off the event loop, with a
 * time and memory budget). Each page gets `timeoutMs` once a worker has it; a worker over its
 * budget or its heap cap (`resourceLimits`) is terminated and replaced, and that page's run fails
 * with PAGE_TOO_COMPLEX. The server's own thread only copies the body in and the result out.
 *
 * The entry is a plain .mjs file resolved from the project root at run time and imported by a
 * one-line eval'd bootstrap: a bundler cannot follow it (Turbopack traces `new Worker(<path>)` and
 * would try to bundle tsx), so `next start`, vitest and the tsx scripts all load the same file.
 */

const WORKER_FILE = path.join(process.cwd(), "server", "capabilities", "web-scrape", "page-worker.mjs");
const BOOTSTRAP = `import(${JSON.stringify(pathToFileURL(WORKER_FILE).href)});`;

type TJob = {
  id: number;
  task: TWorkerTask;
  timeoutMs: number;
  resolve: (r: TWorkerResult) => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
};

type TSlot = {
  worker: Worker;
  ready: boolean;
  dead: boolean;
  job: TJob | null;
  timer: ReturnType<typeof setTimeout> | null;
};

/** A worker's reply: ready, a result (null is one: no listing found), an expected failure, or a bug's message. */
type TWorkerMessage = {
  ready?: true;
  id?: number;
  result?: TWorkerResult;
  failure?: TWorkerFailure;
  error?: string;
};

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

class PageWorkerPool {
  private slots: TSlot[] = [];
  private queue: TJob[] = [];
  private nextId = 1;

  constructor(private readonly limits: Pick<TPageLimits, "memoryMb" | "workers">) {}

  run(task: TWorkerTask, timeoutMs: number, signal?: AbortSignal): Promise<TWorkerResult> {
    return new Promise<TWorkerResult>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new CapabilityFailure("ABORTED", `${describeTask(task)} was cancelled.`, true));
        return;
      }
      const job: TJob = { id: this.nextId++, task, timeoutMs, resolve, reject };
      if (signal) {
        job.signal = signal;
        job.onAbort = () => {
          const i = this.queue.indexOf(job);
          if (i < 0) return; // already in a worker: it finishes within its budget
          this.queue.splice(i, 1);
          reject(new CapabilityFailure("ABORTED", `${describeTask(task)} was cancelled.`, true));
        };
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** Terminates every worker (tests, shutdown). Queued pages fail with ABORTED. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) {
      this.settle(job);
      job.reject(new CapabilityFailure("ABORTED", "The page reader was shut down.", true));
    }
    await Promise.all([...this.slots].map((s) => this.kill(s)));
  }

  private pump(): void {
    while (this.queue.length) {
      const slot = this.slots.find((s) => s.ready && !s.job && !s.dead);
      if (!slot) {
        if (this.slots.length < this.limits.workers) this.spawn();
        return; // a worker that becomes ready (or finishes) pumps again
      }
      this.dispatch(slot, this.queue.shift() as TJob);
    }
  }

  private spawn(): void {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    const slot: TSlot = { worker, ready: false, dead: false, job: null, timer: null };
    this.slots.push(slot);
    worker.on("message", (message: TWorkerMessage) => {
      if (message.ready) {
        slot.ready = true;
        worker.unref();
        this.pump();
        return;
      }
      const job = slot.job;
      if (!job || job.id !== message.id) return;
      this.release(slot);
      if (message.failure) {
        const { code, message: text, retryable, details } = message.failure;
        job.reject(new CapabilityFailure(code, text, retryable, details));
      } else if (message.error !== undefined || message.result === undefined) {
        job.reject(
          new CapabilityFailure(
            "INTERNAL",
            `${describeTask(job.task)} failed unexpectedly: ${message.error ?? "no result"}`,
          ),
        );
      } else {
        job.resolve(message.result);
      }
      this.pump();
    });
    worker.on("error", (error: Error & { code?: string }) => this.died(slot, error));
    worker.on("exit", (code) => this.died(slot, new Error(`page worker exited with code ${code}`)));
  }

  private dispatch(slot: TSlot, job: TJob): void {
    slot.job = job;
    slot.worker.ref(); // a page in flight keeps the process alive; an idle worker does not
    slot.timer = setTimeout(() => {
      void this.kill(slot);
      this.settle(job);
      job.reject(
        new CapabilityFailure(
          "PAGE_TOO_COMPLEX",
          `${describeTask(job.task)} took longer than its ${seconds(job.timeoutMs)} budget, so it was stopped. The page is too large or too deeply nested to read.`,
          false,
          { timeoutMs: job.timeoutMs },
        ),
      );
      this.pump();
    }, job.timeoutMs);
    slot.worker.postMessage({ id: job.id, task: job.task });
  }

  private release(slot: TSlot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (slot.job) this.settle(slot.job);
    slot.job = null;
    slot.worker.unref();
  }

  private settle(job: TJob): void {
    if (job.signal && job.onAbort) job.signal.removeEventListener("abort", job.onAbort);
  }

  private async kill(slot: TSlot): Promise<void> {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.dead = true;
    this.slots = this.slots.filter((s) => s !== slot);
    await slot.worker.terminate().catch(() => {});
  }

  /** A worker crashed, ran out of heap or exited: fail its page, replace it on demand. */
  private died(slot: TSlot, error: Error & { code?: string }): void {
    if (slot.dead) return;
    const wasReady = slot.ready;
    const job = slot.job;
    void this.kill(slot);
    if (job) {
      this.settle(job);
      job.reject(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new CapabilityFailure(
              "PAGE_TOO_COMPLEX",
              `${describeTask(job.task)} needed more than ${this.limits.memoryMb} MB, so it was stopped. The page is too large to read.`,
              false,
              { memoryMb: this.limits.memoryMb },
            )
          : new CapabilityFailure("INTERNAL", `${describeTask(job.task)} failed unexpectedly: ${error.message}`),
      );
    }
    if (!wasReady) {
      // The reader cannot start at all (broken install): fail what waits rather than respawn forever.
      for (const queued of this.queue.splice(0)) {
        this.settle(queued);
        queued.reject(new CapabilityFailure("INTERNAL", `The page reader could not start: ${error.message}`));
      }
      return;
    }
    this.pump();
  }
}

let pool: PageWorkerPool | null = null;
/** The limits the pool was started with (an encode job gets the same time budget as a page). */
let poolLimits: TPageLimits | null = null;

/** Reads one page in the process-wide pool (sized by the first caller's limits). */
export function readPageInWorker(task: TPageTask, limits: TPageLimits, signal?: AbortSignal): Promise<TPageResult> {
  if (!pool) {
    pool = new PageWorkerPool(limits);
    poolLimits = limits;
  }
  return pool.run(task, limits.timeoutMs, signal) as Promise<TPageResult>;
}

/**
 * JSON + sha256 + Brotli of `value` (lib/encode-json.ts) in a page worker when the pool runs (a refresh that read a
 * page started it): the server's thread pays for copying the value in, not for serialising, hashing and compressing
 * it. Without a pool, or when the worker fails, the same bytes are made here (Brotli in libuv's thread pool).
 */
export async function encodeJsonOffThread(value: unknown, label: string): Promise<TEncodedJson> {
  if (!pool || !poolLimits) return encodeJson(value);
  try {
    return (await pool.run({ kind: "encode-json", value, label }, poolLimits.timeoutMs)) as TEncodedJson;
  } catch {
    return encodeJson(value);
  }
}

function runInPool(task: TWorkerTask, limits: TPageLimits, signal?: AbortSignal): Promise<TWorkerResult> {
  if (!pool) {
    pool = new PageWorkerPool(limits);
    poolLimits = limits;
  }
  return pool.run(task, limits.timeoutMs, signal);
}

/** The inert, numbered copy of a sample page for the page view (page-snapshot.ts), made in the pool. */
export async function snapshotPageInWorker(html: string, limits: TPageLimits): Promise<TPageSnapshot> {
  return (await runInPool({ kind: "snapshot", html }, limits)) as TPageSnapshot;
}

/** The copy and the page stamped for its screenshot (page-snapshot.ts `stampedSnapshot`), made in the pool. */
export async function stampedSnapshotInWorker(html: string, limits: TPageLimits): Promise<TStampedSnapshot> {
  return (await runInPool({ kind: "snapshot", html, stamp: true }, limits)) as TStampedSnapshot;
}

/** The anchors of a snapshot's element (anchor-element.ts), found in the pool. */
export async function anchorElementInWorker(
  html: string,
  element: number,
  limits: TPageLimits,
): Promise<TAnchoredElement> {
  return (await runInPool({ kind: "anchor-element", html, element }, limits)) as TAnchoredElement;
}

/** What a listing read is given besides the page: the most items, and a cancel for a call still queued. */
export type TListingInWorkerOptions = TListingOptions & { signal?: AbortSignal };

/**
 * Is this sample page a listing, and how is it read (listing/detect-listing.ts)? Null when it is not one. In the pool:
 * the page is untrusted, so it is parsed under the page budget, never on the server's thread (docs/page-reading.md).
 */
export async function detectListingInWorker(
  html: string,
  url: string,
  limits: TPageLimits,
  opts: TListingInWorkerOptions = {},
): Promise<TDetectedListing | null> {
  const task: TWorkerTask = { kind: "detect-listing", html, url, maxItems: opts.maxItems };
  return (await runInPool(task, limits, opts.signal)) as TDetectedListing | null;
}

/** A listing page's items read with its locked plan (listing/read-listing.ts), in the pool. */
export async function readListingInWorker(
  html: string,
  url: string,
  plan: TListingPlan,
  limits: TPageLimits,
  opts: TListingInWorkerOptions = {},
): Promise<TReadListingResult> {
  const task: TWorkerTask = { kind: "read-listing", html, url, plan, maxItems: opts.maxItems };
  return (await runInPool(task, limits, opts.signal)) as TReadListingResult;
}

/**
 * A feed's entries (feed-items/parse-feed.ts), parsed in the pool. A body that is no feed rejects with parseFeed's
 * own CapabilityFailure (INVALID_RESPONSE, its message and details); one over the budget with PAGE_TOO_COMPLEX.
 */
export async function parseFeedInWorker(
  text: string,
  url: string,
  maxEntries: number,
  limits: TPageLimits,
): Promise<TFeedParse> {
  return (await runInPool({ kind: "parse-feed", text, url, maxEntries }, limits)) as TFeedParse;
}

/** Stops the pool's workers; the next page starts a fresh pool. */
export async function closePageWorkers(): Promise<void> {
  const current = pool;
  pool = null;
  poolLimits = null;
  await current?.close();
}

/** Answers CSS queries against an HTML string in the pool (callers that hold HTML but no answers). */
export async function answerCssInWorker(
  html: string,
  queries: readonly TCssQuery[],
  limits: TPageLimits,
): Promise<Record<string, TCssAnswer>> {
  const result = await readPageInWorker(
    {
      kind: "html",
      body: html,
      finalUrl: "about:blank",
      requestedUrl: "about:blank",
      contentType: "text/html",
      css: [...queries],
    },
    limits,
  );
  return result.ok ? result.css : {};
}
