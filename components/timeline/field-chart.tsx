"use client";

import { useFormatInstant } from "@/components/format/local-time";

type TPoint = { at: Date; value: number; materiality: "material" | "notable" | "baseline"; changeId: string };

const W = 280;
const H = 90;
const PAD = 8;

/** A small line chart of one numeric field over time (plain SVG); material changes are marked red. */
export function FieldChart({ field, points }: { field: string; points: TPoint[] }) {
  const formatInstant = useFormatInstant();
  const times = points.map((p) => new Date(p.at).getTime());
  const values = points.map((p) => p.value);
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const [v0, v1] = [Math.min(...values), Math.max(...values)];
  const x = (t: number) => (t1 === t0 ? W / 2 : PAD + ((t - t0) / (t1 - t0)) * (W - 2 * PAD));
  const y = (v: number) => (v1 === v0 ? H / 2 : H - PAD - ((v - v0) / (v1 - v0)) * (H - 2 * PAD));
  const path = points
    .map((p, i) => `${i ? "L" : "M"}${x(times[i] ?? 0).toFixed(1)},${y(p.value).toFixed(1)}`)
    .join(" ");
  const last = points.at(-1);
  return (
    <figure
      data-testid={`chart-${field}`}
      data-points={points.length}
      className="rounded-lg border border-stone-200 p-3 dark:border-stone-800"
    >
      <figcaption className="flex justify-between text-xs">
        <span className="font-mono font-medium">{field}</span>
        <span className="text-stone-500">
          now {last?.value ?? "—"} · range {v0}–{v1}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`${field} over time: ${points.length} point(s), from ${points[0]?.value} to ${last?.value}`}
        className="mt-2 h-24 w-full"
      >
        <path d={path} fill="none" stroke="currentColor" strokeWidth="1.5" className="text-stone-500" />
        {points.map((p, i) => (
          <circle
            key={p.changeId}
            data-testid="chart-point"
            data-materiality={p.materiality}
            cx={x(times[i] ?? 0)}
            cy={y(p.value)}
            r={p.materiality === "material" ? 4 : 2.5}
            className={p.materiality === "material" ? "fill-red-600" : "fill-stone-500"}
          >
            <title>{`${formatInstant(p.at)}: ${p.value} (${p.materiality})`}</title>
          </circle>
        ))}
      </svg>
    </figure>
  );
}
