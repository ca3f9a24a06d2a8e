"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import type { TSavedDraft } from "./setup-view";

type TProps = {
  sessionId: string;
  /** The saved draft's definition: another one (a chat edit, a card edit) may watch another price, so ask again. */
  definition: unknown;
  /** Off while a turn runs or after locking. */
  editable: boolean;
  /** The draft after a pick, and what the pick did in words. */
  onChosen: (draft: TSavedDraft, said: string) => void;
};

/**
 * The prices the sample page offers (two or more plans or variants), so the person can point at the one to watch
 * (docs/intelligence.md): a radio group — a click, a tap or the arrow keys — with each price's name,
 * its value on the sample and where it sits in words; the one the draft's main price field watches is checked.
 * Choosing another rebinds that field through its checked anchor (setup.choosePrice), as naming it in chat does.
 */
export function PriceCandidates({ sessionId, definition, editable, onChosen }: TProps) {
  const trpc = useTRPC();
  const groupId = useId();
  const [error, setError] = useState<string | null>(null);
  const listed = useQuery(trpc.setup.priceCandidates.queryOptions({ sessionId }));
  const { refetch } = listed;
  // Another draft (a chat or card edit) may watch another price: ask again when the saved definition changes.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the definition is the trigger, not an input
  useEffect(() => {
    void refetch();
  }, [definition, refetch]);
  const choose = useMutation(trpc.setup.choosePrice.mutationOptions());
  const rows = listed.data ?? [];

  // The radio the person moved to, shown checked at once; a move made while one is being saved waits its turn, so
  // arrowing through the list saves the last one (and keeps focus: the group is never disabled under the keyboard).
  const [chosen, setChosen] = useState<number | null>(null);
  const running = useRef(false);
  const queued = useRef<number | null>(null);
  const pick = async (index: number) => {
    setChosen(index);
    setError(null);
    queued.current = index;
    if (running.current) return;
    running.current = true;
    try {
      // A move made while the list is re-read is taken too: the loop looks again after each read.
      while (queued.current !== null) {
        const next = queued.current;
        queued.current = null;
        const result = await choose.mutateAsync({ sessionId, index: next });
        onChosen(result.draft, result.said.join(" "));
        if (queued.current === null) await refetch();
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      running.current = false;
      setChosen(null);
    }
  };

  if (rows.length < 2) return null;
  return (
    <section
      aria-labelledby={`${groupId}-title`}
      data-testid="price-candidates"
      className="rounded-xl border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id={`${groupId}-title`} className="text-base font-semibold">
        Prices on this page
      </h2>
      <p className="mt-1 text-sm text-stone-600 dark:text-stone-400">
        The draft watches the checked one. Pick another to watch it instead.
      </p>
      <fieldset className="mt-3" disabled={!editable} aria-describedby={`${groupId}-status`}>
        <legend className="sr-only">The price to watch</legend>
        <ul className="flex flex-col gap-1">
          {rows.map((c) => (
            <li key={c.index}>
              <label className="flex cursor-pointer items-start gap-2 rounded-md px-2 py-1.5 hover:bg-stone-50 has-[:focus-visible]:outline has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-amber-600 dark:hover:bg-stone-800">
                <input
                  type="radio"
                  name={`${groupId}-price`}
                  value={c.index}
                  checked={chosen === null ? c.watched : chosen === c.index}
                  onChange={() => void pick(c.index)}
                  className="mt-1 accent-amber-700"
                />
                <span className="min-w-0">
                  <span className="font-medium">{c.label || "Unnamed price"}</span>{" "}
                  <span className="tabular-nums">{c.text}</span>
                  {c.shown ? null : (
                    <span className="text-stone-600 dark:text-stone-400"> (not shown until chosen)</span>
                  )}
                  <span className="block text-xs text-stone-600 dark:text-stone-400">{c.where}</span>
                </span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <p id={`${groupId}-status`} aria-live="polite" className="mt-2 text-sm">
        {choose.isPending ? (
          "Watching that price…"
        ) : error ? (
          <span className="text-red-700 dark:text-red-400">{error}</span>
        ) : null}
      </p>
    </section>
  );
}
