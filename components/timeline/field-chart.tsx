"use client";

import { AxisBottom, AxisLeft } from "@visx/axis";
import { localPoint } from "@visx/event";
import { Group } from "@visx/group";
import { scaleLinear, scaleTime } from "@visx/scale";
import { LinePath } from "@visx/shape";
import { TooltipWithBounds } from "@visx/tooltip";
import { type KeyboardEvent, type PointerEvent, useId, useRef, useState } from "react";
import { formatAxisValue } from "@/components/format/chart-format";
import { formatAxisTime } from "@/components/format/date-time";
import { useFormatInstant } from "@/components/format/local-time";
import { useTimeZone } from "@/components/format/time-zone";
import { formatFieldValue } from "@/contracts/definition/format-value";
import type { TNumericSeries } from "@/contracts/trackers";
import { useElementWidth } from "./use-element-width";

/** The plot's fixed height: the box is this tall before and after the chart is drawn (no layout shift). */
export const CHART_HEIGHT = 176;
const MARGIN = { top: 12, right: 16, bottom: 28, left: 64 };
/** Half the widest time label ("12 Dec, 03:28 AM" at 11 px): nearer the right end than this, a centred one is cut. */
const TIME_LABEL_HALF_WIDTH = 48;

type TMark = {
  at: Date;
  value: number;
  kind: "material" | "notable" | "baseline" | "now";
};

const KIND_LABELS: Record<TMark["kind"], string> = {
  material: "material change",
  notable: "notable change",
  baseline: "first record",
  now: "now (last check)",
};

const POINT_STYLES: Record<Exclude<TMark["kind"], "now">, { r: number; className: string }> = {
  material: { r: 5, className: "fill-red-600 dark:fill-red-400" },
  notable: { r: 4, className: "fill-amber-500 dark:fill-amber-300" },
  baseline: { r: 3.5, className: "fill-stone-500 dark:fill-stone-400" },
};

/** The marks to plot: every recorded point, then "now" (the observed value at the last check) when it adds one. */
function marksOf(series: TNumericSeries): TMark[] {
  const marks: TMark[] = series.points.map((p) => ({ at: new Date(p.at), value: p.value, kind: p.materiality }));
  const last = marks.at(-1);
  const now = series.now;
  if (now && !(last && last.value === now.value && new Date(now.at).getTime() <= last.at.getTime())) {
    marks.push({ at: new Date(now.at), value: now.value, kind: "now" });
  }
  return marks;
}

/** A value domain with room around a flat line (integers keep whole-number steps). */
function valueDomain(values: number[], integer: boolean): [number, number] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (lo !== hi) return [lo, hi];
  const pad = integer ? 1 : Math.max(Math.abs(lo) * 0.05, 0.5);
  return [lo - pad, hi + pad];
}

/** The axis writes times as every other time in the app: English, 24-hour, in the page's zone (docs/feed.md). */
const AXIS_LOCALE = "en-GB";

/**
 * One numeric field over time: a time axis and a value axis, the recorded points (material changes marked red and
 * larger), a dashed line to what the source says now, and a tooltip per point — by pointer, or by keyboard (focus
 * the chart, then ← → Home End) with the same text read out politely. Drawn with visx once the box is measured;
 * the box has its fixed height from the server's first paint on.
 */
export function FieldChart({ series }: { series: TNumericSeries }) {
  const box = useRef<HTMLDivElement>(null);
  const width = useElementWidth(box);
  const formatInstant = useFormatInstant();
  const timeZone = useTimeZone();
  const [active, setActive] = useState<number | null>(null);
  const marks = marksOf(series);
  const format = series.format;
  const text = (value: number) => formatFieldValue(value, format ?? undefined);
  const describeMark = (m: TMark) => `${formatInstant(m.at)}: ${text(m.value)} (${KIND_LABELS[m.kind]})`;
  const values = marks.map((m) => m.value);
  const lastValue = marks.at(-1)?.value;
  const summary = marks.length
    ? `now ${text(lastValue as number)} · range ${text(Math.min(...values))} – ${text(Math.max(...values))}`
    : "no values yet";
  const activeMark = active === null ? undefined : marks[active];
  const focused = activeMark ?? marks.at(-1);
  const id = useId();

  const innerWidth = Math.max(width - MARGIN.left - MARGIN.right, 0);
  const innerHeight = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;
  const times = marks.map((m) => m.at.getTime());
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  // A single instant gets an hour either side, so its point sits in the middle of a real axis.
  const timeDomain: [Date, Date] =
    t0 === t1 ? [new Date(t0 - 3_600_000), new Date(t1 + 3_600_000)] : [new Date(t0), new Date(t1)];
  const span = timeDomain[1].getTime() - timeDomain[0].getTime();
  const x = scaleTime({ domain: timeDomain, range: [0, innerWidth] });
  const integer = format?.type === "integer";
  const y = scaleLinear({ domain: valueDomain(values, integer), range: [innerHeight, 0], nice: true });
  const yTicks = y.ticks(4).filter((v) => !integer || Number.isInteger(v));
  // At least the two ends, and never the same label twice (ticks finer than the format's unit).
  const timeLabel = (t: Date) => formatAxisTime(t, span, { locale: AXIS_LOCALE, timeZone });
  const rawTimeTicks = x.ticks(Math.max(2, Math.floor(innerWidth / 110)));
  const timeTicks = (rawTimeTicks.length >= 2 ? rawTimeTicks : timeDomain).filter(
    (t, i, all) => i === 0 || timeLabel(t) !== timeLabel(all[i - 1] as Date),
  );
  const recorded = marks.filter((m) => m.kind !== "now");
  const nowMark = marks.find((m) => m.kind === "now");
  const lastRecorded = recorded.at(-1);

  const nearest = (px: number) => {
    let best = 0;
    for (let i = 1; i < marks.length; i++) {
      const m = marks[i] as TMark;
      if (Math.abs(x(m.at) - px) < Math.abs(x((marks[best] as TMark).at) - px)) best = i;
    }
    return best;
  };
  const onPointerMove = (event: PointerEvent<SVGSVGElement>) => {
    const point = localPoint(event);
    if (point && marks.length) setActive(nearest(point.x - MARGIN.left));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!marks.length) return;
    const last = marks.length - 1;
    const moves: Record<string, number> = {
      ArrowLeft: Math.max((active ?? last + 1) - 1, 0),
      ArrowRight: Math.min((active ?? -1) + 1, last),
      Home: 0,
      End: last,
    };
    if (event.key in moves) {
      event.preventDefault();
      setActive(moves[event.key] as number);
    } else if (event.key === "Escape") setActive(null);
  };

  return (
    <figure
      data-testid={`chart-${series.field}`}
      data-points={series.points.length}
      className="min-w-0 rounded-lg border border-stone-200 p-3 dark:border-stone-800"
    >
      <figcaption className="flex flex-wrap justify-between gap-x-3 text-xs">
        <span className="font-medium">{series.label}</span>
        <span id={`${id}-summary`} className="text-stone-600 dark:text-stone-400" data-testid="chart-summary">
          {summary}
        </span>
      </figcaption>
      {/*
        Keyboard: the plot is a slider over its points (← → Home End); each point's time, value and kind is its
        value text, read out as it moves. Pointer: the nearest point's tooltip.
      */}
      <div
        ref={box}
        role="slider"
        aria-label={`${series.label} over time, ${marks.length} point(s)`}
        aria-valuemin={0}
        aria-valuemax={Math.max(marks.length - 1, 0)}
        aria-valuenow={active ?? Math.max(marks.length - 1, 0)}
        aria-valuetext={focused ? describeMark(focused) : "no values yet"}
        aria-describedby={`${id}-summary`}
        tabIndex={0}
        onKeyDown={onKeyDown}
        onFocus={() => setActive((a) => a ?? (marks.length ? marks.length - 1 : null))}
        onBlur={() => setActive(null)}
        className="relative mt-2 rounded focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
        style={{ height: CHART_HEIGHT }}
      >
        {width > 0 && marks.length ? (
          <svg
            width={width}
            height={CHART_HEIGHT}
            aria-hidden="true"
            data-testid="chart-svg"
            onPointerMove={onPointerMove}
            onPointerLeave={() => setActive(null)}
            className="text-stone-400 dark:text-stone-600"
          >
            <Group left={MARGIN.left} top={MARGIN.top}>
              <rect width={innerWidth} height={innerHeight} fill="transparent" />
              <AxisLeft
                scale={y}
                tickValues={yTicks}
                tickFormat={(v) => formatAxisValue(Number(v), format)}
                stroke="currentColor"
                tickStroke="currentColor"
                axisClassName="chart-axis-value"
                tickLabelProps={{ className: "fill-stone-600 dark:fill-stone-400", fontSize: 11, dx: -4 }}
              />
              <AxisBottom
                top={innerHeight}
                scale={x}
                tickValues={timeTicks}
                tickFormat={(v) => timeLabel(v as Date)}
                stroke="currentColor"
                tickStroke="currentColor"
                axisClassName="chart-axis-time"
                // A label at the right end is drawn leftwards from its tick, so "03:28 AM" is not cut at the edge.
                tickLabelProps={(value) => ({
                  className: "fill-stone-600 dark:fill-stone-400",
                  fontSize: 11,
                  textAnchor: x(value as Date) > innerWidth - TIME_LABEL_HALF_WIDTH ? "end" : "middle",
                })}
              />
              <LinePath
                data={recorded}
                x={(m) => x(m.at)}
                y={(m) => y(m.value)}
                className="stroke-stone-500 dark:stroke-stone-400"
                strokeWidth={1.5}
                fill="none"
              />
              {nowMark && lastRecorded ? (
                <LinePath
                  data={[lastRecorded, nowMark]}
                  x={(m) => x(m.at)}
                  y={(m) => y(m.value)}
                  className="stroke-sky-600 dark:stroke-sky-400"
                  strokeWidth={1.5}
                  strokeDasharray="4 3"
                  fill="none"
                />
              ) : null}
              {marks.map((m, i) =>
                m.kind === "now" ? (
                  <circle
                    key="now"
                    data-testid="chart-now"
                    cx={x(m.at)}
                    cy={y(m.value)}
                    r={i === active ? 6 : 4.5}
                    strokeWidth={2}
                    className="fill-white stroke-sky-600 dark:fill-stone-900 dark:stroke-sky-400"
                  />
                ) : (
                  <circle
                    key={series.points[i]?.changeId ?? i}
                    data-testid="chart-point"
                    data-materiality={m.kind}
                    cx={x(m.at)}
                    cy={y(m.value)}
                    r={POINT_STYLES[m.kind].r + (i === active ? 2 : 0)}
                    className={`${POINT_STYLES[m.kind].className} ${i === active ? "stroke-stone-900 dark:stroke-white" : ""}`}
                    strokeWidth={i === active ? 2 : 0}
                  />
                ),
              )}
            </Group>
          </svg>
        ) : null}
        {activeMark && width > 0 ? (
          <TooltipWithBounds
            key={active}
            left={MARGIN.left + x(activeMark.at)}
            top={MARGIN.top + y(activeMark.value)}
            unstyled
            applyPositionStyle
            className="pointer-events-none z-10 rounded-md border border-stone-200 bg-white px-2 py-1 text-xs shadow-md dark:border-stone-700 dark:bg-stone-800"
            data-testid="chart-tooltip"
            data-kind={activeMark.kind}
          >
            <span className="block font-medium">{text(activeMark.value)}</span>
            <span className="block text-stone-600 dark:text-stone-300">{formatInstant(activeMark.at)}</span>
            <span className="block text-stone-600 dark:text-stone-300">{KIND_LABELS[activeMark.kind]}</span>
          </TooltipWithBounds>
        ) : null}
      </div>
    </figure>
  );
}
