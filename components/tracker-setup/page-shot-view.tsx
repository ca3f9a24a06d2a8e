"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useFormatInstant } from "@/components/format/local-time";
import { useTRPC } from "@/components/providers/trpc";
import { focusRing } from "@/components/ui/button-styles";
import type { TPageBox, TPageView } from "@/contracts/setup-page-view";

type TProps = {
  sessionId: string;
  view: TPageView;
  editable: boolean;
  picked: number | null;
  onPick: (n: number, text: string) => void;
};

type TMark = { element: number; label: string; text: string; tone: "field" | "passed" | "proposal" };

const TONES: Record<TMark["tone"], string> = {
  field: "border-[3px] border-solid border-amber-700",
  passed: "border-2 border-dashed border-stone-500",
  proposal: "border-[3px] border-dotted border-green-700",
};
const LABELS: Record<TMark["tone"], string> = {
  field: "bg-amber-700 text-white",
  passed: "bg-stone-200 text-stone-900",
  proposal: "bg-green-700 text-white",
};

/** What the view marks, each on the element(s) it reads: fields, proposals, and the prices passed over. */
function marksOf(view: TPageView): TMark[] {
  const marks: TMark[] = [];
  // An element a field reads is marked as the field's only (as on the copy, where the field's outline wins).
  const read = new Set(view.fields.flatMap((f) => f.elements));
  for (const c of view.candidates)
    if (!c.watched)
      for (const element of c.elements.filter((n) => !read.has(n)))
        marks.push({ element, label: `passed over: ${c.label || c.text}`, text: c.text, tone: "passed" });
  for (const f of view.fields) {
    if (f.proposal)
      marks.push({ element: f.proposal.element, label: `${f.name}?`, text: f.proposal.text, tone: "proposal" });
    for (const element of f.elements) marks.push({ element, label: f.name, text: f.reads ?? "", tone: "field" });
  }
  return marks;
}

const pct = (part: number, whole: number) => `${(part / whole) * 100}%`;

/**
 * The page as the server's browser photographed it (docs/page-view.md), with the view's marks drawn on it. A click
 * or tap anywhere asks the server which element is under it (`setup.elementAt`); each mark is also a button, so
 * the marked elements are reachable by keyboard here too.
 */
export function PageShotView({ sessionId, view, editable, picked, onPick }: TProps) {
  const trpc = useTRPC();
  const formatInstant = useFormatInstant();
  const shot = view.shot;
  const image = useQuery({
    ...trpc.setup.pageShot.queryOptions({ sessionId }),
    enabled: shot !== null,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const { refetch } = image;
  const stale = shot !== null && image.data !== undefined && image.data?.takenAt !== shot.takenAt;
  useEffect(() => {
    if (stale) void refetch();
  }, [stale, refetch]);
  const at = useMutation(trpc.setup.elementAt.mutationOptions());
  const [missed, setMissed] = useState(false);
  // The box of an element picked on the picture that the view does not mark (the server said where it is).
  const [hitBox, setHitBox] = useState<TPageBox | null>(null);
  if (!shot) return null;
  const boxOf = new Map<number, TPageBox>(shot.boxes.map((b) => [b.element, b]));
  const marks = marksOf(view).filter((m) => boxOf.has(m.element));
  const pickedBox =
    picked === null ? undefined : (boxOf.get(picked) ?? (hitBox?.element === picked ? hitBox : undefined));
  const place = (b: TPageBox) => ({
    left: pct(b.x, shot.width),
    top: pct(b.y, shot.height),
    width: pct(b.width, shot.width),
    height: pct(b.height, shot.height),
  });

  const onClick = async (e: React.MouseEvent<HTMLDivElement>) => {
    if (!editable) return;
    const rect = e.currentTarget.getBoundingClientRect();
    const x = ((e.clientX - rect.left) * shot.width) / rect.width;
    const y = ((e.clientY - rect.top) * shot.height) / rect.height;
    const hit = await at.mutateAsync({ sessionId, x: Math.max(0, x), y: Math.max(0, y) }).catch(() => null);
    setMissed(!hit);
    if (hit) {
      setHitBox(hit.box);
      onPick(hit.element, hit.text);
    }
  };

  return (
    <div className="flex flex-col gap-1">
      <div
        className="h-[28rem] w-full overflow-auto rounded-md border border-stone-300 bg-white sm:h-[36rem] dark:border-stone-700"
        data-testid="page-shot"
      >
        {image.data && !stale ? (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard path is the marks' buttons and the prices list
          // biome-ignore lint/a11y/noStaticElementInteractions: a click on the picture points at what is under it
          <div className="relative w-full cursor-crosshair" onClick={(e) => void onClick(e)}>
            {/* biome-ignore lint/performance/noImgElement: a data URL from the server, not an optimisable asset */}
            <img
              src={image.data.dataUrl}
              alt={`The page as the server's browser saw it, read ${formatInstant(shot.takenAt)}`}
              width={shot.width}
              height={shot.height}
              className="block h-auto w-full select-none"
              draggable={false}
            />
            {marks.map((m) => {
              const b = boxOf.get(m.element) as TPageBox;
              return (
                <button
                  key={`${m.tone}-${m.element}-${m.label}`}
                  type="button"
                  disabled={!editable}
                  aria-label={`Pick ${m.label}${m.text ? `: ${m.text}` : ""}`}
                  data-testid="page-shot-mark"
                  data-element={m.element}
                  onClick={(e) => {
                    e.stopPropagation();
                    onPick(m.element, m.text);
                  }}
                  className={`absolute rounded-sm ${TONES[m.tone]} ${focusRing}`}
                  style={place(b)}
                >
                  <span
                    className={`absolute bottom-full left-0 whitespace-nowrap rounded px-1 text-[11px] font-semibold ${LABELS[m.tone]}`}
                  >
                    {m.label}
                  </span>
                </button>
              );
            })}
            {pickedBox ? (
              <span
                className="pointer-events-none absolute rounded-sm border-[3px] border-blue-600"
                style={place(pickedBox)}
                data-testid="page-shot-picked"
              />
            ) : null}
          </div>
        ) : (
          <p className="p-3 text-sm text-stone-600 dark:text-stone-400" role="status">
            {image.isError ? "The picture could not be loaded: choose Copy to see the page." : "Loading the picture…"}
          </p>
        )}
      </div>
      {missed ? (
        <p className="text-sm text-stone-600 dark:text-stone-400" role="status">
          Nothing to point at there (below the page, or the part of it not photographed). Try the copy.
        </p>
      ) : null}
      {at.isPending ? (
        <p className="text-sm text-stone-600 dark:text-stone-400" role="status">
          Finding what is there…
        </p>
      ) : null}
    </div>
  );
}
