"use client";

import { useId, useState } from "react";
import type { TDraftView } from "./types";

type TMode = NonNullable<TDraftView["readMode"]>["mode"];

const MODES: { mode: TMode; label: string; hint: string }[] = [
  {
    mode: "auto",
    label: "Automatic",
    hint: "A plain fetch; a browser only when the page's content is filled in by script.",
  },
  {
    mode: "always",
    label: "Always in a browser",
    hint: "Every check renders the page first: slower, sees what scripts write.",
  },
  {
    mode: "never",
    label: "Never in a browser",
    hint: "A plain fetch only: fastest, misses anything a script fills in.",
  },
];

/**
 * The card's choice of how a web page is read (web.scrape `render`; docs/page-reading.md, "Pages that need a browser"): a native
 * radio group, so arrow keys move between the modes; a change re-reads the sample on the server.
 */
export function ReadModeSwitch({
  readMode,
  disabled,
  onChange,
}: {
  readMode: NonNullable<TDraftView["readMode"]>;
  disabled: boolean;
  onChange: (mode: TMode) => Promise<void>;
}) {
  const name = useId();
  const [pending, setPending] = useState<TMode | null>(null);
  const [error, setError] = useState<string | null>(null);
  const choose = (mode: TMode) => {
    if (mode === readMode.mode || pending) return;
    setError(null);
    setPending(mode);
    onChange(mode)
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
      .finally(() => setPending(null));
  };
  return (
    <fieldset className="mt-2" data-testid="read-mode" data-mode={readMode.mode} aria-busy={pending !== null}>
      <legend className="text-sm font-medium">Read the page</legend>
      <div className="mt-1 flex flex-col gap-1">
        {MODES.map((m) => {
          const unavailable = m.mode === "always" && !readMode.browser;
          return (
            <label key={m.mode} className="flex items-start gap-2 text-sm">
              <input
                type="radio"
                name={name}
                value={m.mode}
                checked={(pending ?? readMode.mode) === m.mode}
                disabled={disabled || unavailable}
                onChange={() => choose(m.mode)}
                className="mt-1"
              />
              <span>
                <span className="font-medium">{m.label}</span> <span className="font-mono text-xs">({m.mode})</span>
                <span className="block text-xs text-stone-600 dark:text-stone-400">
                  {m.hint}
                  {unavailable ? " Not available: this server has no browser configured." : ""}
                </span>
              </span>
            </label>
          );
        })}
      </div>
      <p className="mt-1 text-xs text-stone-600 dark:text-stone-400" data-testid="read-mode-browser">
        {readMode.browser
          ? "A browser is configured on this server."
          : "No browser is configured on this server (BROWSER_EXECUTABLE_PATH or BROWSER_WS_ENDPOINT)."}
      </p>
      {pending ? (
        <p role="status" className="mt-1 text-xs text-stone-600 dark:text-stone-400">
          Reading the page again…
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400" data-testid="read-mode-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
