"use client";

import { defineRegistry } from "@json-render/react";
import { createContext, useContext } from "react";
import { LocalTime } from "@/components/format/local-time";
import { feedCatalog } from "@/contracts/feed-catalog";
import type { TFeedSlot } from "@/contracts/feed-item";
import { feedHref } from "@/contracts/feed-link";

/** The card's slots; the `Slot` element reads its text from here. */
export const SlotsContext = createContext<Record<string, TFeedSlot> | undefined>(undefined);

const TONES = {
  material: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  notable: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  failing: "bg-stone-800 text-white dark:bg-stone-200 dark:text-stone-900",
  info: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
} as const;

function SlotText({ name }: { name: string }) {
  const slots = useContext(SlotsContext);
  const content = slots?.[name]?.content;
  // Nothing while unfilled; model text is rendered as a text node, never as HTML.
  if (!content) return null;
  return (
    <p
      data-testid={`slot-${name}`}
      className="rounded-md bg-stone-50 px-3 py-2 text-sm text-stone-700 dark:bg-stone-800 dark:text-stone-200"
    >
      {content}
    </p>
  );
}

function Sparkline({ values, label }: { values: number[]; label?: string | null }) {
  if (values.length < 2) return null;
  const min = Math.min(...values);
  const span = Math.max(...values) - min || 1;
  const points = values.map((v, i) => `${(i / (values.length - 1)) * 100},${30 - ((v - min) / span) * 30}`).join(" ");
  return (
    <svg viewBox="0 0 100 30" className="h-8 w-32" role="img" aria-label={label ?? "trend"}>
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="2" />
    </svg>
  );
}

export const { registry: feedRegistry } = defineRegistry(feedCatalog, {
  components: {
    Stack: ({ props, children }) => (
      <div
        className={`flex ${props.direction === "horizontal" ? "flex-row flex-wrap items-center" : "flex-col"} ${props.gap === "md" ? "gap-4" : "gap-2"}`}
      >
        {children}
      </div>
    ),
    Heading: ({ props }) => <h3 className="text-base font-semibold">{props.text}</h3>,
    Text: ({ props }) => (
      <p
        className={`text-sm ${props.tone === "danger" ? "text-red-700 dark:text-red-300" : props.tone === "muted" ? "text-stone-600 dark:text-stone-400" : ""}`}
      >
        {props.text}
      </p>
    ),
    ChangeRow: ({ props }) => (
      <div className="flex flex-wrap items-baseline gap-2 text-sm" data-testid="change-row">
        <span className="font-medium">{props.field}</span>
        <span className="text-stone-600 dark:text-stone-400 line-through">{props.from}</span>
        <span aria-hidden="true">→</span>
        <span className="sr-only">changed to</span>
        <span className="font-semibold">{props.to}</span>
      </div>
    ),
    DeltaBadge: ({ props }) => (
      <span className={`inline-flex w-fit rounded-full px-2 py-0.5 text-xs font-medium ${TONES[props.tone]}`}>
        {props.label}
      </span>
    ),
    Sparkline: ({ props }) => <Sparkline values={props.values} label={props.label} />,
    WeatherHeader: ({ props }) => (
      <div className="flex items-baseline gap-3">
        <span className="text-3xl font-semibold">
          {Math.round(props.temperature)}
          {props.unit ?? "°C"}
        </span>
        <span className="text-sm text-stone-600 dark:text-stone-400">
          {props.condition} · {props.place}
        </span>
      </div>
    ),
    HourlyStrip: ({ props }) => (
      <ol className="flex gap-3 overflow-x-auto text-xs" aria-label="Next hours">
        {props.hours.map((h) => (
          <li key={h.time} className="flex flex-col items-center">
            <span className="text-stone-600 dark:text-stone-400">{h.time}</span>
            <span className="font-medium">{Math.round(h.temperature)}°</span>
            {h.precipitation != null ? (
              <span className="text-sky-700 dark:text-sky-300">{h.precipitation}%</span>
            ) : null}
          </li>
        ))}
      </ol>
    ),
    EventRow: ({ props }) => (
      <div className="flex flex-col">
        <span className="font-medium">{props.title}</span>
        <span className="text-sm text-stone-600 dark:text-stone-400">
          <LocalTime value={props.start} />
          {props.location ? ` · ${props.location}` : ""}
        </span>
      </div>
    ),
    Link: ({ props }) => {
      // The same check the server validated with (contracts/feed-link.ts); anything it refuses shows as text.
      const href = feedHref(props.href);
      if (!href) return <span className="text-sm">{props.label}</span>;
      return (
        <a
          href={href.href}
          className="w-fit text-sm font-medium underline underline-offset-2"
          {...(href.kind === "external" ? { rel: "noopener noreferrer nofollow", target: "_blank" } : {})}
        >
          {props.label}
        </a>
      );
    },
    Slot: ({ props }) => <SlotText name={props.name} />,
  },
});
