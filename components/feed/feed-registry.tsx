"use client";

import { createContext, type ReactNode, useContext } from "react";
import type { z } from "zod";
import { LocalTime, useFormatInstant } from "@/components/format/local-time";
import { formatAgo } from "@/components/trackers/format";
import type { feedCatalog } from "@/contracts/feed-catalog";
import type { TFeedSlot } from "@/contracts/feed-item";
import { feedHref } from "@/contracts/feed-link";

/*
 * The feed's components for the browser. Only the catalog's TYPES come from contracts/feed-catalog.ts: its zod
 * schemas (and json-render, which pulls zod in too) stay on the server, which validated every spec before
 * sending it (server/feed/get-feed.ts), so rendering needs no validation library (docs/feed.md).
 */

type TCatalogComponents = (typeof feedCatalog)["data"]["components"];
export type TFeedComponentName = keyof TCatalogComponents;
type TPropsOf<K extends TFeedComponentName> = z.infer<TCatalogComponents[K]["props"]>;
export type TFeedComponent<K extends TFeedComponentName> = (input: {
  props: TPropsOf<K>;
  children?: ReactNode;
}) => ReactNode;
export type TFeedRegistry = { [K in TFeedComponentName]: TFeedComponent<K> };

/** The card's slots; the `Slot` element reads its text from here. */
export const SlotsContext = createContext<Record<string, TFeedSlot> | undefined>(undefined);

/** When the feed was read: relative times count from it, so the server's HTML and the hydrated page agree. */
export const FeedAsOfContext = createContext<Date | null>(null);

const TONES = {
  material: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-200",
  notable: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  failing: "bg-stone-800 text-white dark:bg-stone-200 dark:text-stone-900",
  info: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
} as const;

const MUTED = "text-stone-600 dark:text-stone-400";

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

/**
 * The day's briefing: the model's text for these inputs when its slot is filled (each line a paragraph, at most two),
 * else the rule-based lines — one or the other, never both (docs/feed.md, "The briefing card"). Text nodes only.
 */
function BriefingText({ lines, slot }: TPropsOf<"Briefing">) {
  const slots = useContext(SlotsContext);
  const model = slots?.[slot]?.content
    ?.split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, 2);
  const shown = model && model.length > 0 ? model : lines;
  return (
    <div className="space-y-1 text-sm" data-testid="briefing-text" data-origin={shown === lines ? "rules" : "model"}>
      {shown.map((line, i) => (
        // Lines are positional and may repeat: the index is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <p key={i}>{line}</p>
      ))}
    </div>
  );
}

/**
 * "2 h ago", counted from when the feed was read (so the server's HTML and the hydrated page say the same), with the
 * exact time in the feed's zone on hover (feed-time.tsx).
 */
function When({ at, prefix }: { at: string; prefix?: string | null | undefined }) {
  const asOf = useContext(FeedAsOfContext);
  const format = useFormatInstant();
  const value = new Date(at);
  if (Number.isNaN(value.getTime())) return null;
  return (
    <span className={`text-xs ${MUTED}`} data-testid="feed-when">
      {prefix ? `${prefix} ` : ""}
      <span title={format(value)} data-instant={value.toISOString()}>
        {formatAgo(value, asOf ?? value)}
      </span>
    </span>
  );
}

/**
 * One day's events (docs/feed.md, "Agenda"): a list in time order, each row its time — written by the server in the
 * person's zone, shown as it came — then the title, and what else the row needs (until when, where, that it repeats).
 * Long titles wrap anywhere so a 390 px card never scrolls sideways.
 */
function AgendaList({ label, events, more }: TPropsOf<"AgendaList">) {
  return (
    <div className="text-sm">
      <ol aria-label={label} className="divide-y divide-stone-100 dark:divide-stone-800" data-testid="agenda-list">
        {events.map((e, i) => {
          const details = [e.detail, e.location, e.recurring ? "repeats" : null].filter(Boolean).join(" · ");
          return (
            // The rows never reorder: the server sent them sorted, and two rows may share a time and a title.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <li key={i} className="flex gap-3 py-1.5" data-testid="agenda-event">
              <time dateTime={e.at} className="w-24 shrink-0 font-medium tabular-nums" data-testid="agenda-time">
                {e.time}
              </time>
              <div className="min-w-0 flex-1">
                <p className="font-medium wrap-anywhere" data-testid="agenda-title">
                  {e.title}
                </p>
                {details ? <p className={`text-xs wrap-anywhere ${MUTED}`}>{details}</p> : null}
              </div>
            </li>
          );
        })}
      </ol>
      {more && more > 0 ? (
        <p className={`mt-1 text-xs ${MUTED}`}>+{more.toLocaleString("en-US")} more on this day</p>
      ) : null}
    </div>
  );
}

const SPARK_W = 128;
const SPARK_H = 32;

/** A fixed-size inline SVG (width and height set), so nothing moves when it paints. */
function Sparkline({ values, label }: { values: number[]; label?: string | null | undefined }) {
  if (values.length < 2) return null;
  const min = Math.min(...values);
  const span = Math.max(...values) - min || 1;
  const points = values
    .map(
      (v, i) =>
        `${((i / (values.length - 1)) * (SPARK_W - 4) + 2).toFixed(1)},${(SPARK_H - 2 - ((v - min) / span) * (SPARK_H - 4)).toFixed(1)}`,
    )
    .join(" ");
  const last = points.split(" ").at(-1)?.split(",") ?? ["0", "0"];
  return (
    <svg
      width={SPARK_W}
      height={SPARK_H}
      viewBox={`0 0 ${SPARK_W} ${SPARK_H}`}
      className="block shrink-0 text-stone-700 dark:text-stone-300"
      role="img"
      aria-label={label ?? "trend"}
      data-testid="sparkline"
    >
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" />
      <circle cx={last[0]} cy={last[1]} r="2.5" fill="currentColor" />
    </svg>
  );
}

function FeedLink({ href: raw, label, className }: { href: string; label: ReactNode; className?: string }) {
  // The same check the server validated with (contracts/feed-link.ts); anything it refuses shows as text.
  const href = feedHref(raw);
  if (!href) return <span className="text-sm">{label}</span>;
  return (
    <a
      href={href.href}
      className={className ?? "w-fit text-sm font-medium underline underline-offset-2"}
      {...(href.kind === "external" ? { rel: "noopener noreferrer nofollow", target: "_blank" } : {})}
    >
      {label}
    </a>
  );
}

/** Earlier changes, folded: a native <details>, so it opens with the keyboard and without JavaScript. */
function Earlier({ total, href, decision, entries }: TPropsOf<"Earlier">) {
  const rest = total - entries.length;
  return (
    <details className="group text-sm" data-testid="earlier-changes">
      <summary className={`w-fit cursor-pointer select-none ${MUTED} hover:underline`}>
        {total} earlier {total === 1 ? "change" : "changes"}
      </summary>
      <ol className="mt-2 space-y-1 border-l-2 border-stone-200 pl-3 dark:border-stone-700">
        {entries.map((e) => (
          <li key={e.at} className="flex flex-wrap items-baseline gap-x-2" data-testid="earlier-change">
            <When at={e.at} />
            <span>{e.text}</span>
            {e.isNew ? <NewMarker label="new" /> : null}
          </li>
        ))}
      </ol>
      <p className="mt-2">
        <FeedLink
          href={href}
          label={
            <>
              {rest > 0 ? `${rest} more on the timeline` : "See them on the timeline"}
              {decision ? <span className="sr-only"> of “{decision}”</span> : null}
            </>
          }
          className="text-sm underline underline-offset-2"
        />
      </p>
    </details>
  );
}

const KIND_TONES = {
  new: "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200",
  back: "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-200",
  changed: "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200",
  gone: "bg-stone-200 text-stone-800 dark:bg-stone-700 dark:text-stone-100",
} as const;

/**
 * A set's members in one change (docs/sets.md): a real list, each row its kind in words (not only by colour), the
 * member's name as a link to its page, and what changed; long names and keys wrap anywhere so a 390 px card never
 * scrolls sideways.
 */
function MemberList({ label, items, more, moreHref }: TPropsOf<"MemberList">) {
  return (
    <div className="text-sm" data-testid="feed-set-members">
      <ul aria-label={label} className="space-y-1">
        {items.map((item) => (
          <li
            key={`${item.kind}:${item.href}:${item.name}`}
            className="flex min-w-0 flex-wrap items-baseline gap-x-2"
            data-testid="feed-set-member"
            data-kind={item.kind}
          >
            <span
              className={`inline-flex w-fit shrink-0 rounded-full px-2 py-0.5 text-xs font-medium ${KIND_TONES[item.kind]}`}
            >
              {item.kind}
            </span>
            <FeedLink
              href={item.href}
              label={item.name}
              className="min-w-0 font-medium wrap-anywhere underline underline-offset-2"
            />
            {item.detail ? <span className={`min-w-0 text-xs wrap-anywhere ${MUTED}`}>{item.detail}</span> : null}
          </li>
        ))}
      </ul>
      {more && more > 0 && moreHref ? (
        <p className="mt-1">
          <FeedLink
            href={moreHref}
            label={
              <>
                +{more.toLocaleString("en-US")} more<span className="sr-only"> — {label}</span>
              </>
            }
            className="text-sm underline underline-offset-2"
          />
        </p>
      ) : null}
    </div>
  );
}

function NewMarker({ label }: { label: string }) {
  return (
    <span
      data-testid="new-marker"
      className="inline-flex w-fit rounded-full border border-sky-700 px-2 py-0.5 text-xs font-medium text-sky-800 dark:border-sky-300 dark:text-sky-200"
    >
      {label}
    </span>
  );
}

export const feedRegistry: TFeedRegistry = {
  Stack: ({ props, children }) => (
    <div
      className={`flex ${props.direction === "horizontal" ? "flex-row flex-wrap items-center" : "flex-col"} ${props.gap === "md" ? "gap-4" : "gap-2"}`}
    >
      {children}
    </div>
  ),
  // Cards sit under the page's h1.
  Heading: ({ props }) => <h2 className="text-base font-semibold">{props.text}</h2>,
  Text: ({ props }) => (
    <p
      className={`text-sm ${props.tone === "danger" ? "text-red-700 dark:text-red-300" : props.tone === "muted" ? MUTED : ""}`}
    >
      {props.text}
    </p>
  ),
  ChangeRow: ({ props }) => (
    <div className="flex flex-wrap items-baseline gap-x-2 text-sm" data-testid="change-row">
      <span className="font-medium">{props.field}</span>
      <span className={`${MUTED} line-through`}>{props.from}</span>
      <span aria-hidden="true">→</span>
      <span className="sr-only">changed to</span>
      <span className="font-semibold">{props.to}</span>
      {props.change ? <span className={`text-xs ${MUTED}`}>({props.change})</span> : null}
    </div>
  ),
  DeltaBadge: ({ props }) => (
    <span className={`inline-flex w-fit rounded-full px-2 py-0.5 text-xs font-medium ${TONES[props.tone]}`}>
      {props.label}
    </span>
  ),
  When: ({ props }) => <When at={props.at} prefix={props.prefix} />,
  NewMarker: ({ props }) => <NewMarker label={props.label} />,
  Earlier: ({ props }) => <Earlier {...props} />,
  MemberList: ({ props }) => <MemberList {...props} />,
  Sparkline: ({ props }) => <Sparkline values={props.values} label={props.label} />,
  WeatherHeader: ({ props }) => (
    <div className="flex items-baseline gap-3">
      <span className="text-3xl font-semibold">
        {Math.round(props.temperature)}
        {props.unit ?? "°C"}
      </span>
      <span className={`text-sm ${MUTED}`}>
        {props.condition} · {props.place}
      </span>
    </div>
  ),
  HourlyStrip: ({ props }) => (
    <ol className="flex gap-3 overflow-x-auto text-xs" aria-label="Next hours">
      {props.hours.map((h) => (
        <li key={h.time} className="flex flex-col items-center">
          <span className={MUTED}>{h.time}</span>
          <span className="font-medium">{Math.round(h.temperature)}°</span>
          {h.precipitation != null ? <span className="text-sky-700 dark:text-sky-300">{h.precipitation}%</span> : null}
        </li>
      ))}
    </ol>
  ),
  EventRow: ({ props }) => (
    <div className="flex flex-col">
      <span className="font-medium">{props.title}</span>
      <span className={`text-sm ${MUTED}`}>
        <LocalTime value={props.start} />
        {props.location ? ` · ${props.location}` : ""}
      </span>
    </div>
  ),
  AgendaList: ({ props }) => <AgendaList {...props} />,
  Link: ({ props }) => <FeedLink href={props.href} label={props.label} />,
  Slot: ({ props }) => <SlotText name={props.name} />,
  Briefing: ({ props }) => <BriefingText lines={props.lines} slot={props.slot} />,
};
