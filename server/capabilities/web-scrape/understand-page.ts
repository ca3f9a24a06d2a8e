import { sanitizeForStorage } from "../../lib/sanitize-text";
import { answerCssQueries, type TCssAnswer, type TCssQuery } from "./css-query";
import { formatStructuredDocument, type TStructuredDocument } from "./format-structured-document";
import { buildHtmlTree } from "./html-tree";

/**
 * Everything web.scrape does with an untrusted body, in one pure function that runs inside a page
 * worker (page-worker.mjs): parse once, build the structured document, answer the caller's CSS
 * queries from the same tree. Plain data in, plain data out (structured-clone safe).
 */

export type TPageTask = {
  kind: "html" | "json" | "text";
  body: string;
  finalUrl: string;
  requestedUrl: string;
  contentType: string;
  css: TCssQuery[];
};

export type TPageResult =
  | { ok: true; document: TStructuredDocument; json?: unknown; css: Record<string, TCssAnswer> }
  | { ok: false; code: "INVALID_RESPONSE"; message: string };

export function understandPage(task: TPageTask): TPageResult {
  const options = { requestedUrl: task.requestedUrl };
  if (task.kind === "json") {
    let json: unknown;
    try {
      json = JSON.parse(task.body);
    } catch {
      return {
        ok: false,
        code: "INVALID_RESPONSE",
        message: `${task.finalUrl} says it is JSON (${task.contentType || "no content type"}) but the body is not valid JSON.`,
      };
    }
    return {
      ok: true,
      document: formatStructuredDocument({ kind: "json", json }, task.finalUrl, options),
      json: sanitizeForStorage(json),
      css: {},
    };
  }
  if (task.kind === "text") {
    return {
      ok: true,
      document: formatStructuredDocument({ kind: "text", text: task.body }, task.finalUrl, options),
      css: {},
    };
  }
  const tree = buildHtmlTree(task.body);
  const document = formatStructuredDocument({ kind: "html", html: task.body }, task.finalUrl, { ...options, tree });
  const css = task.css.length ? sanitizeForStorage(answerCssQueries(tree, task.css)) : {};
  return { ok: true, document, css };
}
