"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import { ContextFiles } from "@/components/trackers/context-files";
import { uploadContextFile } from "@/components/trackers/upload-context-file";
import { buttonSecondary } from "@/components/ui/button-styles";
import { CONTEXT_FILE_ACCEPT } from "@/contracts/context-files";

type TProps = {
  /** The draft tracker, once the page is bound; null before (files are held here until then). */
  trackerId: string | null;
  /** A turn is running: held files wait for it (it may be the one binding the page and writing the first draft). */
  busy: boolean;
  /** After files were attached: the draft takes them in (setup.applyContextFiles). */
  onAttached: () => Promise<void>;
};

/**
 * Context files while drafting (docs/context-files.md). Files attach to the draft tracker, which exists only once the page is
 * bound (bind-and-sample.ts creates it after the sample was read, so a wrong address leaves nothing behind). Before
 * that, files chosen here are held in the page and attached as soon as the binding turn ends; then the draft takes
 * them in at once (a stated "our price is 10.00" becomes a context rule on the card), and the AI drafter reads them
 * from the next message on.
 */
export function SetupContextFiles({ trackerId, busy, onAttached }: TProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pickerId = useId();
  const picker = useRef<HTMLInputElement>(null);
  const [held, setHeld] = useState<File[]>([]);
  const [status, setStatus] = useState("");
  const [error, setError] = useState<string | null>(null);
  const flushing = useRef(false);

  useEffect(() => {
    if (!trackerId || busy || held.length === 0 || flushing.current) return;
    flushing.current = true;
    void (async () => {
      const failed: string[] = [];
      for (const file of held) {
        setStatus(`Reading and indexing ${file.name}…`);
        try {
          await uploadContextFile(trackerId, file);
        } catch (e) {
          failed.push(e instanceof Error ? e.message : String(e));
        }
      }
      setHeld([]);
      setStatus(failed.length < held.length ? "Attached; the draft takes them into account." : "");
      setError(failed.length > 0 ? failed.join(" ") : null);
      await queryClient.invalidateQueries({ queryKey: trpc.contextFile.list.queryKey({ trackerId }) });
      if (failed.length < held.length) await onAttached();
      flushing.current = false;
    })();
  }, [trackerId, busy, held, onAttached, queryClient, trpc]);

  return (
    <section
      aria-labelledby="setup-context-files"
      data-testid="setup-context-files"
      className="rounded-xl border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id="setup-context-files" className="mb-2 text-base font-semibold">
        Context files
      </h2>
      {trackerId ? <ContextFiles trackerId={trackerId} onChanged={onAttached} /> : null}
      {!trackerId || held.length > 0 ? (
        <div className="space-y-2 text-sm" data-testid="setup-held-files">
          {!trackerId ? (
            <>
              <p className="text-stone-600 dark:text-stone-400">
                Your own documents — a price list, a strategy note. Choose them now: they are attached as soon as the
                page is read, and the draft takes them into account.
              </p>
              <label htmlFor={pickerId} className="sr-only">
                Context file to attach once the page is read
              </label>
              <input
                id={pickerId}
                ref={picker}
                type="file"
                multiple
                accept={CONTEXT_FILE_ACCEPT}
                className="sr-only"
                tabIndex={-1}
                data-testid="setup-held-file-input"
                onChange={(e) => {
                  const chosen = [...(e.target.files ?? [])];
                  setHeld((now) => [...now, ...chosen.filter((f) => !now.some((n) => n.name === f.name))]);
                  e.target.value = "";
                }}
              />
              <button type="button" className={buttonSecondary} onClick={() => picker.current?.click()}>
                Choose files
              </button>
            </>
          ) : null}
          {held.length > 0 ? (
            <ul className="divide-y divide-stone-200 dark:divide-stone-800">
              {held.map((file) => (
                <li key={file.name} className="flex items-center justify-between py-1" data-testid="setup-held-file">
                  <span className="break-all">{file.name}</span>
                  <span className="text-xs text-stone-600 dark:text-stone-400">waiting for the page</span>
                  {!trackerId ? (
                    <button
                      type="button"
                      className="text-xs underline underline-offset-2"
                      onClick={() => setHeld((now) => now.filter((f) => f !== file))}
                    >
                      Remove<span className="sr-only"> {file.name}</span>
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <p role="status" className="min-h-4 text-xs text-sky-800 dark:text-sky-300" data-testid="setup-held-status">
        {status}
      </p>
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400" data-testid="setup-held-error">
          {error}
        </p>
      ) : null}
    </section>
  );
}
