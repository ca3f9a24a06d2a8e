import { sanitizeForStorage, sanitizeText } from "../../lib/sanitize-text";
import { answerCssQueries, type TCssAnswer, type TCssQuery } from "./css-query";
import { formatStructuredDocument, type TStructuredDocument } from "./format-structured-document";
import { hashStructuredDocument } from "./hash-structured-document";
import { buildHtmlTree } from "./html-tree";
import { looksLikeShell, type TShellVerdict } from "./looks-like-shell";

/**
 * Everything web.scrape does with an untrusted body, in one pure function that runs inside a page
 * worker (page-worker.mjs): parse once, build the structured document, answer the caller's CSS
 * queries from the same tree — and, so that the server's own thread only waits, the per-page work that follows
 * from the document: its content hash (with the caller's salt), the app-shell check and the storable HTML.
 * Plain data in, plain data out (structured-clone safe).
 */

export type TPageTask = {
  kind: "html" | "json" | "text";
  body: string;
  finalUrl: string;
  requestedUrl: string;
  contentType: string;
  css: TCssQuery[];
  /** Given: `contentHash` = hashStructuredDocument(document, hashSalt), the very hash the refresh pre-check compares. */
  hashSalt?: string;
  /** `render: auto` before any render: answer `shell` (looks-like-shell.ts). */
  shellCheck?: boolean;
  /** HTML bodies: `html` = the body cut to this many characters, storable characters only. */
  htmlMaxChars?: number;
  /**
   * Hashes (with `hashSalt`) the caller already holds: when `contentHash` is one of them the page is unchanged for
   * the caller, and `html` is left out (`htmlOmitted`): only new content's capture keeps it (docs/refresh.md).
   */
  knownHashes?: readonly string[];
};

export type TPageResult =
  | {
      ok: true;
      document: TStructuredDocument;
      json?: unknown;
      css: Record<string, TCssAnswer>;
      contentHash?: string;
      shell?: TShellVerdict;
      html?: string;
      /** `html` was asked for but left out: the content hash is one the caller knows. */
      htmlOmitted?: true;
    }
  | { ok: false; code: "INVALID_RESPONSE"; message: string };

export function understandPage(task: TPageTask): TPageResult {
  const read = readBody(task);
  if (!read.ok) return read;
  if (task.hashSalt !== undefined) read.contentHash = hashStructuredDocument(read.document, task.hashSalt);
  if (task.shellCheck) read.shell = looksLikeShell({ kind: task.kind, html: task.body, document: read.document });
  if (task.kind === "html" && task.htmlMaxChars !== undefined) {
    if (read.contentHash !== undefined && task.knownHashes?.includes(read.contentHash)) {
      read.htmlOmitted = true;
      return read;
    }
    const cap = task.htmlMaxChars;
    read.html = sanitizeText(task.body.length > cap ? task.body.slice(0, cap) : task.body);
  }
  return read;
}

function readBody(task: TPageTask): TPageResult {
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
