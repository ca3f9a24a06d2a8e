// The page worker's entry (docs/design.md §5: parsing untrusted pages runs off the event loop). Plain
// JavaScript, loaded by path at run time (page-worker-pool.ts), so it works the same under
// `next start` (whose bundle never contains it), vitest, tsx scripts and the benchmark; the
// TypeScript it runs is loaded through tsx's loader, scoped to this import.
import { parentPort } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

const { runPageTask, workerFailureOf } = await tsImport("./page-tasks.ts", import.meta.url);

parentPort.on("message", (message) => {
  let reply;
  try {
    reply = { id: message.id, result: runPageTask(message.task) };
  } catch (error) {
    // An expected failure (a body that is no feed) keeps its code and details; anything else is a bug's message.
    const failure = workerFailureOf(error);
    reply = failure
      ? { id: message.id, failure }
      : { id: message.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort.postMessage(reply);
});
parentPort.postMessage({ ready: true });
