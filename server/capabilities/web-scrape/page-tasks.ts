import { encodeJsonSync, type TEncodedJson } from "../../lib/encode-json";
import { anchorElement, type TAnchoredElement } from "./anchor-element";
import { snapshotPage, stampedSnapshot, type TPageSnapshot, type TStampedSnapshot } from "./page-snapshot";
import { type TPageResult, type TPageTask, understandPage } from "./understand-page";

/**
 * What a page worker (page-worker.mjs) runs: reading a page, or encoding what a refresh keeps of one (its capture:
 * JSON, sha256, Brotli) so that the server's thread only copies the value in and the bytes out (docs/design.md §5).
 */
export type TEncodeJsonTask = {
  kind: "encode-json";
  value: unknown;
  /** For messages: what is encoded ("a capture"). */
  label: string;
};
/** The sample page made inert and numbered for the page view (page-snapshot.ts). */
export type TSnapshotTask = {
  kind: "snapshot";
  html: string;
  maxChars?: number;
  /** Also the page stamped for its screenshot (a browser is configured). */
  stamp?: boolean;
};
/** The anchors of the element a person pointed at in the page view (anchor-element.ts). */
export type TAnchorElementTask = { kind: "anchor-element"; html: string; element: number };
export type TWorkerTask = TPageTask | TEncodeJsonTask | TSnapshotTask | TAnchorElementTask;
export type TWorkerResult = TPageResult | TEncodedJson | TPageSnapshot | TStampedSnapshot | TAnchoredElement;

export function runPageTask(task: TWorkerTask): TWorkerResult {
  if (task.kind === "encode-json") return encodeJsonSync(task.value);
  if (task.kind === "snapshot")
    return task.stamp ? stampedSnapshot(task.html, task.maxChars) : snapshotPage(task.html, task.maxChars);
  if (task.kind === "anchor-element") return anchorElement(task.html, task.element);
  return understandPage(task);
}

/** A task's name in messages ("Reading https://…", "Encoding a capture…"). */
export function describeTask(task: TWorkerTask): string {
  if (task.kind === "encode-json") return `Encoding ${task.label}`;
  if (task.kind === "snapshot") return "Keeping the sample page for the page view";
  if (task.kind === "anchor-element") return "Anchoring the element you pointed at";
  return `Reading ${task.finalUrl}`;
}
