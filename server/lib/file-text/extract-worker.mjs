// The context-file extraction worker's entry (docs/context-files.md: reading an uploaded file runs off the server's
// thread with a time and heap budget). One worker per file: it reads `workerData`, posts one answer and is terminated,
// so whatever the parsers allocated goes with it. Plain JavaScript loaded by path at run time, like the page worker,
// so `next start`, vitest and the tsx scripts load the same file; the TypeScript goes through tsx's loader.
import { parentPort, workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

const { extractText } = await tsImport("./extract-text.ts", import.meta.url);

const { kind, name, bytes, maxChars, budget } = workerData;
try {
  const result = await extractText(kind, name, bytes, maxChars, budget);
  parentPort.postMessage({ ok: true, result });
} catch (error) {
  const known = error && typeof error === "object" && error.name === "AppError";
  parentPort.postMessage({
    ok: false,
    error: known
      ? { code: error.code, message: error.message, details: error.details ?? null }
      : { code: "INTERNAL", message: error instanceof Error ? error.message : String(error), details: null },
  });
}
