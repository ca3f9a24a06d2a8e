import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { TContextFileKind } from "@/contracts/context-files";
import { APP_ERROR_CODES, AppError, type TAppErrorCode } from "../../errors";
import type { TExtracted } from "./extract-text";
import type { TExtractionBudget } from "./extraction-budget";

/**
 * Reads one uploaded file in a worker thread of its own (docs/context-files.md): the server's thread only copies the
 * bytes in and the text out, so health checks and other requests are answered while a hostile file is read. The
 * worker has a heap cap (`resourceLimits`) and a time budget; over either it is terminated and the upload refused with
 * the limit named. Terminating the worker returns its heap, so memory goes back to where it was. At most
 * MAX_PARALLEL files are read at once per process; the rest wait their turn (their budget starts with their worker).
 *
 * The entry is a plain .mjs file imported by a one-line eval'd bootstrap, as for the page workers: a bundler cannot
 * follow it, so `next start`, vitest and the tsx scripts all load the same file.
 */

const WORKER_FILE = path.join(process.cwd(), "server", "lib", "file-text", "extract-worker.mjs");
const BOOTSTRAP = `import(${JSON.stringify(pathToFileURL(WORKER_FILE).href)});`;
const MAX_PARALLEL = 2;

type TWorkerAnswer =
  | { ok: true; result: TExtracted }
  | { ok: false; error: { code: string; message: string; details: Record<string, unknown> | null } };

export type TExtractInput = {
  kind: TContextFileKind;
  name: string;
  bytes: Uint8Array;
  maxChars: number;
  budget: TExtractionBudget;
};

let running = 0;
const waiting: (() => void)[] = [];

export async function extractTextInWorker(input: TExtractInput): Promise<TExtracted> {
  if (running >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await runOnce(input);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function runOnce({ kind, name, bytes, maxChars, budget }: TExtractInput): Promise<TExtracted> {
  return new Promise<TExtracted>((resolve, reject) => {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { kind, name, bytes, maxChars, budget },
      resourceLimits: { maxOldGenerationSizeMb: budget.memoryMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate().catch(() => {});
      outcome();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new AppError(
              "UNPROCESSABLE",
              `Reading “${name}” took longer than its ${duration(budget.timeoutMs)} budget, so it was stopped. Split it into smaller files, or save its text as a .txt file.`,
              { details: { limit: "timeoutMs", timeoutMs: budget.timeoutMs } },
            ),
          ),
        ),
      budget.timeoutMs,
    );
    worker.on("message", (answer: TWorkerAnswer) =>
      finish(() => (answer.ok ? resolve(answer.result) : reject(toAppError(answer.error)))),
    );
    worker.on("error", (error: Error & { code?: string }) =>
      finish(() =>
        reject(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new AppError(
                "PAYLOAD_TOO_LARGE",
                `Reading “${name}” needed more than ${budget.memoryMb} MB of memory, so it was stopped. Split it into smaller files, or save its text as a .txt file.`,
                { details: { limit: "memoryMb", memoryMb: budget.memoryMb } },
              )
            : new AppError("INTERNAL", `Reading “${name}” failed unexpectedly.`, { cause: error }),
        ),
      ),
    );
    worker.on("exit", (code) =>
      finish(() =>
        reject(
          new AppError("INTERNAL", `Reading “${name}” failed unexpectedly (the reader exited with code ${code}).`),
        ),
      ),
    );
  });
}

function toAppError(error: { code: string; message: string; details: Record<string, unknown> | null }): AppError {
  const code = (error.code in APP_ERROR_CODES ? error.code : "INTERNAL") as TAppErrorCode;
  return code === "INTERNAL"
    ? new AppError("INTERNAL", "Reading the file failed unexpectedly.", { cause: new Error(error.message) })
    : new AppError(code, error.message, error.details ? { details: error.details } : undefined);
}

const duration = (ms: number) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);
