"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type DragEvent, useId, useRef, useState } from "react";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonSecondary } from "@/components/ui/button-styles";
import {
  CONTEXT_FILE_ACCEPT,
  formatFileSize,
  type TContextEmbeddingStatus,
  type TContextFileView,
} from "@/contracts/context-files";
import { uploadContextFile } from "./upload-context-file";

const KIND_LABELS = { text: "Text", markdown: "Markdown", csv: "CSV", pdf: "PDF", docx: "Word" } as const;
const UNIT_LABELS = { text: "lines", markdown: "lines", csv: "rows", pdf: "pages", docx: "lines" } as const;
/** Embeddings beside full text (hybrid retrieval); nothing is said when no embedding model is configured. */
const EMBEDDING_LABELS: Record<TContextEmbeddingStatus, string> = {
  off: "",
  pending: "embedding…",
  ready: "embedded",
  failed: "embeddings failed",
};

/**
 * The tracker page's "Context files" (docs/design.md §3, docs/context-files.md): the person's own documents the judge consults — attach
 * (picker, or drop a file on the area), see each file's size, type, indexing state and how many changes cited it,
 * replace or delete (each after a confirmation). Errors from the upload are shown as the server words them.
 */
export function ContextFiles({
  trackerId,
  onChanged,
}: {
  trackerId: string;
  /** After a file was attached or replaced (the setup chat lets the draft take it in). */
  onChanged?: () => Promise<void>;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.contextFile.list.queryOptions({ trackerId }));
  const pickerId = useId();
  const picker = useRef<HTMLInputElement>(null);
  const replaceTarget = useRef<TContextFileView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState("");
  const [dragging, setDragging] = useState(false);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.contextFile.list.queryKey({ trackerId }) }),
      // The definition shows a rule's kept value once its file went (locked-definition.tsx).
      queryClient.invalidateQueries({ queryKey: trpc.tracker.get.queryKey({ trackerId }) }),
    ]);
  const remove = useMutation(
    trpc.contextFile.delete.mutationOptions({
      onSuccess: () => refresh(),
      onError: (e) => setError(e.message),
    }),
  );

  async function send(file: File) {
    const target = replaceTarget.current;
    replaceTarget.current = null;
    setError(null);
    setNotice("");
    setBusy(target ? `Replacing ${target.name}…` : `Reading and indexing ${file.name}…`);
    try {
      const result = await uploadContextFile(trackerId, file, target?.id);
      const embedding =
        result.file.embeddingStatus === "failed" ? " Embedding failed, so it is searched by its words only." : "";
      setNotice(
        `${result.file.name} ${result.replaced ? "replaced and re-indexed" : "attached and indexed"}.${embedding}`,
      );
      await refresh();
      await onChanged?.();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
      if (picker.current) picker.current.value = "";
    }
  }

  function onDrop(event: DragEvent<HTMLFieldSetElement>) {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file && !busy) void send(file);
  }

  function choose(target: TContextFileView | null) {
    if (
      target &&
      !window.confirm(
        `Replace “${target.name}”? Its text is read again; changes keep what they cited.${usesNote(target, "replaced")}`,
      )
    )
      return;
    replaceTarget.current = target;
    picker.current?.click();
  }

  const files = list.data?.files ?? [];
  const limits = list.data?.limits;
  return (
    <div className="space-y-3" data-testid="context-files">
      <p className="text-sm text-stone-600 dark:text-stone-400">
        Your own documents — a price list, a strategy note. The agent reads the relevant parts when it judges a change
        and cites them in the reason.
      </p>
      <fieldset
        data-testid="context-drop-zone"
        data-dragging={dragging}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        className={`rounded-lg border border-dashed p-4 text-center text-sm ${
          dragging
            ? "border-sky-600 bg-sky-50 dark:border-sky-400 dark:bg-sky-950"
            : "border-stone-300 dark:border-stone-700"
        }`}
      >
        <legend className="sr-only">Attach a context file: choose one, or drop it here</legend>
        <label htmlFor={pickerId} className="sr-only">
          Context file
        </label>
        <input
          id={pickerId}
          ref={picker}
          type="file"
          accept={CONTEXT_FILE_ACCEPT}
          className="sr-only"
          data-testid="context-file-input"
          tabIndex={-1}
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) void send(file);
          }}
        />
        <button type="button" className={buttonSecondary} disabled={Boolean(busy)} onClick={() => choose(null)}>
          Attach a file
        </button>
        <p className="mt-2 text-xs text-stone-600 dark:text-stone-400">
          or drop one here · .txt, .md, .csv, .pdf, .docx
          {limits ? ` · up to ${formatFileSize(limits.maxBytes)}, ${limits.maxFiles} files` : ""}
        </p>
      </fieldset>
      <p role="status" className="min-h-4 text-xs text-sky-800 dark:text-sky-300" data-testid="context-file-status">
        {busy ?? notice}
      </p>
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400" data-testid="context-file-error">
          {error}
        </p>
      ) : null}
      {list.isPending ? <p className="text-sm">Loading files…</p> : null}
      {list.isError ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {list.error.message}
        </p>
      ) : null}
      {list.isSuccess && files.length === 0 ? (
        <p className="text-sm text-stone-600 dark:text-stone-400">No files yet.</p>
      ) : null}
      {files.length > 0 ? (
        <ul className="divide-y divide-stone-200 dark:divide-stone-800">
          {files.map((file) => (
            <li key={file.id} className="py-2 text-sm" data-testid="context-file" data-status={file.status}>
              <div className="font-medium break-all">{file.name}</div>
              <div className="text-xs text-stone-600 dark:text-stone-400">
                {KIND_LABELS[file.kind]} · {formatFileSize(file.size)} · {file.units} {UNIT_LABELS[file.kind]} ·{" "}
                <span data-testid="context-file-state">{file.status}</span>
                {EMBEDDING_LABELS[file.embeddingStatus] ? (
                  <span data-testid="context-file-embeddings" data-embeddings={file.embeddingStatus}>
                    {" "}
                    · {EMBEDDING_LABELS[file.embeddingStatus]}
                  </span>
                ) : null}{" "}
                · added <LocalTime value={file.updatedAt} />
              </div>
              {file.embeddingStatus === "failed" ? (
                <div className="text-xs text-amber-800 dark:text-amber-300" data-testid="context-file-embedding-error">
                  {file.embeddingError ?? "Embedding failed."} Searched by its words only; replace the file to retry.
                </div>
              ) : null}
              <div className="text-xs text-stone-600 dark:text-stone-400" data-testid="context-file-cited">
                {file.citedBy === 0 ? (
                  "Not cited yet"
                ) : (
                  <>
                    Cited by {file.citedBy} change{file.citedBy === 1 ? "" : "s"}, last{" "}
                    <LocalTime value={file.lastCitedAt} />
                  </>
                )}
              </div>
              {file.usedBy.length > 0 ? (
                <div className="text-xs text-stone-600 dark:text-stone-400" data-testid="context-file-used-by">
                  Read by {file.usedBy.length === 1 ? "a rule" : "rules"}:{" "}
                  {file.usedBy.map((use) => `${use.name} = ${use.value}`).join(", ")}
                </div>
              ) : null}
              <div className="mt-1 flex gap-2">
                <button
                  type="button"
                  className="text-xs underline underline-offset-2"
                  disabled={Boolean(busy)}
                  onClick={() => choose(file)}
                >
                  Replace<span className="sr-only"> {file.name}</span>
                </button>
                <button
                  type="button"
                  className="text-xs text-red-700 underline underline-offset-2 dark:text-red-400"
                  disabled={remove.isPending}
                  onClick={() => {
                    if (
                      window.confirm(
                        `Delete “${file.name}”? Changes that cited it keep their quotes.${usesNote(file, "deleted")}`,
                      )
                    ) {
                      setError(null);
                      remove.mutate({ trackerId, fileId: file.id });
                    }
                  }}
                >
                  Delete<span className="sr-only"> {file.name}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * What the confirmation says when locked rules read a value from the file: which rules, and that they keep the value
 * it states now — marked on the definition — until the tracker is edited (docs/context-files.md).
 */
function usesNote(file: TContextFileView, going: "deleted" | "replaced"): string {
  if (file.usedBy.length === 0) return "";
  const rules = file.usedBy.flatMap((use) => use.rules.map((rule) => `\n• ${rule} — ${use.name} is ${use.value} here`));
  const after =
    going === "deleted"
      ? "Once it is deleted, they keep using these values, marked as kept, until you edit the tracker."
      : "If the new file no longer states a value, its rules keep the one they used last, marked as kept, until you edit the tracker.";
  return `\n\nThe locked definition's rules read from it:${rules.join("")}\n\n${after}`;
}
