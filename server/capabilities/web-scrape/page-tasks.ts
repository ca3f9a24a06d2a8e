import { encodeJsonSync, type TEncodedJson } from "../../lib/encode-json";
import { type TPageResult, type TPageTask, understandPage } from "./understand-page";

/**
 * What a page worker (page-worker.mjs) runs: reading a page, or encoding what a refresh keeps of one (its capture:
 * JSON, sha256, Brotli) so that the server's thread only copies the value in and the bytes out (DESIGN §5).
 */
export type TEncodeJsonTask = {
  kind: "encode-json";
  value: unknown;
  /** For messages: what is encoded ("a capture"). */
  label: string;
};
export type TWorkerTask = TPageTask | TEncodeJsonTask;
export type TWorkerResult = TPageResult | TEncodedJson;

export function runPageTask(task: TWorkerTask): TWorkerResult {
  return task.kind === "encode-json" ? encodeJsonSync(task.value) : understandPage(task);
}

/** A task's name in messages ("Reading https://…", "Encoding a capture…"). */
export function describeTask(task: TWorkerTask): string {
  return task.kind === "encode-json" ? `Encoding ${task.label}` : `Reading ${task.finalUrl}`;
}
