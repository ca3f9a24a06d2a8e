"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { LocalTime } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { buttonPrimary, buttonSecondary, focusRing } from "@/components/ui/button-styles";
import { PAGE_ELEMENT_ATTRIBUTE, type TPageView } from "@/contracts/setup-page-view";
import { PageShotView } from "./page-shot-view";
import type { TSavedDraft } from "./setup-view";

type TProps = {
  sessionId: string;
  /** The saved draft's definition: a new one may read other elements, so the view is asked again. */
  definition: unknown;
  /** Changes when the sample is read again another way (the read-mode switch). */
  sampleKey: unknown;
  /** Off while a turn runs or after locking. */
  editable: boolean;
  /** Read the page again as soon as the view opens (the tracker page's "fix it on the page"). */
  rereadOnOpen?: boolean;
  onChosen: (draft: TSavedDraft, said: string) => void;
};

/** No scripts run in the frame (sandbox without allow-scripts) and nothing loads (this policy): docs/page-view.md. */
const FRAME_HEAD = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:">`;
const OVERLAY_ID = "bellwether-overlay";
const cssText = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, " ").slice(0, 60)}"`;
const at = (n: number) => `[${PAGE_ELEMENT_ATTRIBUTE}="${n}"]`;

/** Outlines and labels: the fields solid and labelled, the prices passed over dashed, the person's pick in blue. */
function overlayCss(view: TPageView, picked: number | null): string {
  const rules: string[] = [
    `[${PAGE_ELEMENT_ATTRIBUTE}]{cursor:pointer}`,
    `[data-bw-hover]{outline:2px solid #2563eb!important;outline-offset:1px}`,
  ];
  for (const c of view.candidates) {
    if (c.watched) continue;
    for (const n of c.elements)
      rules.push(
        `${at(n)}{outline:2px dashed #78716c!important;outline-offset:2px}`,
        `${at(n)}::before{content:${cssText(`passed over: ${c.label || c.text}`)};font:500 11px system-ui;background:#e7e5e4;color:#1c1917;padding:1px 4px;margin-right:4px;border-radius:3px}`,
      );
  }
  for (const f of view.fields)
    if (f.proposal)
      rules.push(
        `${at(f.proposal.element)}{outline:3px dotted #15803d!important;outline-offset:2px}`,
        `${at(f.proposal.element)}::before{content:${cssText(`${f.name}?`)};font:600 11px system-ui;background:#15803d;color:#fff;padding:1px 4px;margin-right:4px;border-radius:3px}`,
      );
  for (const f of view.fields)
    for (const n of f.elements)
      rules.push(
        `${at(n)}{outline:3px solid #b45309!important;outline-offset:2px}`,
        `${at(n)}::before{content:${cssText(view.which === "earlier" ? `${f.name} (was here)` : f.name)};font:600 11px system-ui;background:#b45309;color:#fff;padding:1px 4px;margin-right:4px;border-radius:3px}`,
      );
  if (picked !== null)
    rules.push(
      `${at(picked)}{outline:3px solid #2563eb!important;outline-offset:2px}`,
      `${at(picked)}::after{content:"your pick";font:600 11px system-ui;background:#2563eb;color:#fff;padding:1px 4px;margin-left:4px;border-radius:3px}`,
    );
  return rules.join("\n");
}

const elementNumber = (target: EventTarget | null): { n: number; el: Element } | null => {
  const el = (target as Element | null)?.closest?.(`[${PAGE_ELEMENT_ATTRIBUTE}]`);
  const n = Number(el?.getAttribute(PAGE_ELEMENT_ATTRIBUTE));
  return el && Number.isInteger(n) && !["HTML", "BODY"].includes(el.tagName) ? { n, el } : null;
};

/**
 * The sample page as the person would see it, made inert (docs/page-view.md), with each field of the draft outlined
 * and labelled where it reads and the prices the draft passed over marked. A click or tap on any element picks it;
 * the panel below binds it to a field (existing or new) through an anchor the server checks on the sample. The
 * keyboard path to the same choice is the list of prices beside it ("Prices on this page") and the panel's form.
 */
export function PageView({ sessionId, definition, sampleKey, editable, rereadOnOpen, onChosen }: TProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ids = useId();
  const [which, setWhich] = useState<"current" | "earlier">("current");
  const viewed = useQuery(trpc.setup.pageView.queryOptions({ sessionId, which }));
  const { refetch } = viewed;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the definition and sample are triggers, not inputs
  useEffect(() => {
    void refetch();
  }, [definition, sampleKey, refetch]);
  const view = viewed.data ?? null;
  const reread = useMutation(trpc.setup.rereadPage.mutationOptions());
  const point = useMutation(trpc.setup.pointAt.mutationOptions());
  const [picked, setPicked] = useState<{ n: number; text: string } | null>(null);
  const [bindTo, setBindTo] = useState<string>("");
  const [status, setStatus] = useState<{ tone: "info" | "error"; text: string } | null>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  // The frame's listeners are added once per load: they read the latest props through refs.
  const editableRef = useRef(editable);
  editableRef.current = editable;

  const moneyField = view?.fields.find((f) => f.type === "money" || f.type === "number")?.name ?? "";
  const pickRef = useRef((_n: number, _el: Element) => {});
  const choose = (n: number, text: string) => {
    setPicked({ n, text });
    // A price goes to the main price field by default; anything else becomes a new field.
    setBindTo(/\d/.test(text) && moneyField ? moneyField : "");
    setStatus(null);
  };
  pickRef.current = (n: number, el: Element) =>
    choose(n, (el.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 80));
  // The picture when the server's browser took one (docs/page-view.md); the copy otherwise, and on request.
  const [display, setDisplay] = useState<"picture" | "copy">("picture");
  const showPicture = display === "picture" && view?.shot != null && which === "current";

  // The overlay is a style element inside the frame, rewritten in place (the page keeps its scroll position).
  const paint = useCallback(() => {
    const doc = frame.current?.contentDocument;
    // Before the copy has loaded the frame holds an empty document: the frame's onLoad paints then.
    const root = doc?.body ?? doc?.documentElement;
    if (!doc || !root || !view) return;
    let style = doc.getElementById(OVERLAY_ID);
    if (!style) {
      style = doc.createElement("style");
      style.id = OVERLAY_ID;
      root.appendChild(style);
    }
    style.textContent = overlayCss(view, picked?.n ?? null);
  }, [view, picked]);

  useEffect(paint, [paint]);

  const onLoad = () => {
    const doc = frame.current?.contentDocument;
    if (!doc || !view) return;
    paint();
    let hovered: Element | null = null;
    doc.addEventListener(
      "click",
      (e) => {
        // Links and buttons of the copy lead nowhere: a click only points.
        e.preventDefault();
        e.stopPropagation();
        const hit = elementNumber(e.target);
        if (hit && editableRef.current) pickRef.current(hit.n, hit.el);
      },
      true,
    );
    doc.addEventListener("mouseover", (e) => {
      hovered?.removeAttribute("data-bw-hover");
      hovered = elementNumber(e.target)?.el ?? null;
      hovered?.setAttribute("data-bw-hover", "");
    });
    // Bring the first watched element into the frame's view (the frame only; the page does not jump).
    const first = view.fields.flatMap((f) => f.elements)[0];
    const el = first === undefined ? null : doc.querySelector(at(first));
    if (el && doc.defaultView) {
      const top = el.getBoundingClientRect().top + doc.defaultView.scrollY - 80;
      doc.defaultView.scrollTo(0, Math.max(0, top));
    }
  };

  const invalidate = useCallback(() => queryClient.invalidateQueries(trpc.setup.pathFilter()), [queryClient, trpc]);

  const rereadPage = reread.mutateAsync;
  const readAgain = useCallback(async () => {
    setStatus(null);
    try {
      const result = await rereadPage({ sessionId });
      setPicked(null);
      setWhich("current");
      // The answer carries the new view: shown at once, with what was said (no refetch to wait for).
      const shown = trpc.setup.pageView.queryKey({ sessionId, which: "current" });
      queryClient.setQueryData(shown, result.view);
      await queryClient.invalidateQueries({
        ...trpc.setup.pathFilter(),
        predicate: (q) => JSON.stringify(q.queryKey) !== JSON.stringify(shown),
      });
      setStatus({ tone: "info", text: result.said.join(" ") });
    } catch (e) {
      setStatus({ tone: "error", text: e instanceof Error ? e.message : String(e) });
    }
  }, [rereadPage, sessionId, queryClient, trpc]);

  const opened = useRef(false);
  useEffect(() => {
    if (rereadOnOpen && editable && !opened.current) {
      opened.current = true;
      void readAgain();
    }
  }, [rereadOnOpen, editable, readAgain]);

  const bind = async (choice = picked ? { n: picked.n, field: bindTo || null } : null) => {
    if (!choice) return;
    setStatus(null);
    try {
      const result = await point.mutateAsync({ sessionId, element: choice.n, field: choice.field });
      setPicked(null);
      onChosen(result.draft, result.said.join(" "));
      await invalidate();
      setStatus({ tone: "info", text: result.said.join(" ") });
    } catch (e) {
      setStatus({ tone: "error", text: e instanceof Error ? e.message : String(e) });
    }
  };

  if (viewed.isPending)
    return (
      <p className="text-sm text-stone-600 dark:text-stone-400" role="status">
        Loading the page view…
      </p>
    );
  return (
    <section
      aria-labelledby={`${ids}-title`}
      data-testid="page-view"
      className="flex flex-col gap-3 rounded-xl border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h2 id={`${ids}-title`} className="text-base font-semibold">
            The page, with what is watched on it
          </h2>
          {view ? (
            <p className="text-sm text-stone-600 dark:text-stone-400">
              {view.which === "earlier" ? "As it was when read on " : "Read on "}
              <LocalTime value={view.readAt} /> from <span className="break-all">{view.url}</span>
              {view.truncated ? " (too long: its end is not shown)" : ""}. Click or tap any element to watch it.
            </p>
          ) : (
            <p className="text-sm text-stone-600 dark:text-stone-400">
              No copy of this page is kept yet. Read it again to see what each field reads on it.
            </p>
          )}
        </div>
        <div className="flex flex-wrap gap-2">
          {view?.shot && which === "current" ? (
            <fieldset className="flex rounded-md border border-stone-300 text-sm dark:border-stone-700">
              <legend className="sr-only">Show the page as</legend>
              {(["picture", "copy"] as const).map((d) => (
                <button
                  key={d}
                  type="button"
                  aria-pressed={display === d}
                  onClick={() => setDisplay(d)}
                  data-testid={`page-view-show-${d}`}
                  className={`px-3 py-1.5 ${focusRing} ${display === d ? "bg-stone-900 text-white dark:bg-stone-100 dark:text-stone-900" : ""}`}
                >
                  {d === "picture" ? "Picture" : "Copy"}
                </button>
              ))}
            </fieldset>
          ) : null}
          {view?.hasEarlier ? (
            <fieldset className="flex rounded-md border border-stone-300 text-sm dark:border-stone-700">
              <legend className="sr-only">Which read of the page</legend>
              {(["current", "earlier"] as const).map((w) => (
                <button
                  key={w}
                  type="button"
                  aria-pressed={which === w}
                  onClick={() => {
                    setPicked(null);
                    setWhich(w);
                  }}
                  className={`px-3 py-1.5 ${focusRing} ${which === w ? "bg-stone-900 text-white dark:bg-stone-100 dark:text-stone-900" : ""}`}
                >
                  {w === "current" ? "Now" : "Before"}
                </button>
              ))}
            </fieldset>
          ) : null}
          <button
            type="button"
            className={`${buttonSecondary} ${focusRing}`}
            disabled={!editable || reread.isPending}
            onClick={() => void readAgain()}
            data-testid="page-view-reread"
          >
            {reread.isPending ? "Reading the page…" : "Read the page again"}
          </button>
        </div>
      </div>
      {view ? (
        <>
          <ul className="flex flex-col gap-1 text-sm" aria-label="What each field reads on this page">
            {view.fields.map((f) => (
              <li key={f.name} data-testid="page-view-field">
                <span className="rounded bg-amber-700 px-1.5 py-0.5 text-xs font-semibold text-white">{f.name}</span>{" "}
                {f.reads !== null ? (
                  <>
                    reads <span className="font-medium tabular-nums">{f.reads}</span> — {f.where}
                    {f.elements.length === 0 ? " (from the page's data, not a visible element)" : ""}
                  </>
                ) : (
                  <span className="text-red-800 dark:text-red-300">
                    reads nothing on this page
                    {view.hasEarlier && view.which === "current" ? " — see Before for where it was" : ""}; it looked for{" "}
                    {f.where}
                  </span>
                )}
                {f.proposal && view.which === "current" ? (
                  <span className="mt-1 flex flex-wrap items-center gap-2" data-testid="page-view-proposal">
                    <span>
                      {f.proposal.why ? "The agent suggests" : "What it read before,"} “{f.proposal.text}”
                      {f.proposal.why ? ", " : ", is now "}
                      {f.proposal.where} (outlined green){f.proposal.why ? `: ${f.proposal.why}` : "."}
                    </span>
                    <button
                      type="button"
                      className={`${buttonSecondary} ${focusRing} px-2 py-1`}
                      disabled={!editable || point.isPending}
                      onClick={() => void bind({ n: f.proposal?.element ?? -1, field: f.name })}
                    >
                      Use it for {f.name}
                    </button>
                  </span>
                ) : null}
              </li>
            ))}
          </ul>
          {showPicture ? (
            <PageShotView
              sessionId={sessionId}
              view={view}
              editable={editable}
              picked={picked?.n ?? null}
              onPick={choose}
            />
          ) : null}
          <iframe
            hidden={showPicture}
            ref={frame}
            title="The sample page (a copy: nothing on it runs or loads)"
            sandbox="allow-same-origin"
            srcDoc={`${FRAME_HEAD}${view.html}`}
            onLoad={onLoad}
            data-testid="page-view-frame"
            className="h-[28rem] w-full rounded-md border border-stone-300 bg-white sm:h-[36rem] dark:border-stone-700"
          />
        </>
      ) : null}
      {picked ? (
        <form
          className="flex flex-col gap-2 rounded-md border border-blue-300 bg-blue-50 p-3 text-sm sm:flex-row sm:items-end dark:border-blue-800 dark:bg-blue-950"
          data-testid="page-view-pick"
          onSubmit={(e) => {
            e.preventDefault();
            void bind();
          }}
        >
          <p className="min-w-0 flex-1">
            You picked <span className="font-medium">“{picked.text || "an element without text"}”</span>.
          </p>
          <label className="flex flex-col gap-1">
            <span>Watch it as</span>
            <select
              value={bindTo}
              onChange={(e) => setBindTo(e.target.value)}
              className={`rounded-md border border-stone-300 bg-white p-1.5 dark:border-stone-700 dark:bg-stone-900 ${focusRing}`}
              data-testid="page-view-field-select"
            >
              {view?.fields.map((f) => (
                <option key={f.name} value={f.name}>
                  {f.name} (instead of what it reads now)
                </option>
              ))}
              <option value="">a new field</option>
            </select>
          </label>
          <div className="flex gap-2">
            <button
              type="submit"
              className={`${buttonPrimary} ${focusRing}`}
              disabled={point.isPending}
              data-testid="page-view-use"
            >
              {point.isPending ? "Checking…" : "Watch this"}
            </button>
            <button type="button" className={`${buttonSecondary} ${focusRing}`} onClick={() => setPicked(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      <p aria-live="polite" className="text-sm" data-testid="page-view-status">
        {status ? (
          <span className={status.tone === "error" ? "text-red-700 dark:text-red-400" : ""}>{status.text}</span>
        ) : null}
      </p>
    </section>
  );
}
