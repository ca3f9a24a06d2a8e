"use client";

import { Component, type ReactNode } from "react";
import { LocalTime } from "@/components/format/local-time";
import type { TFeedItem } from "@/contracts/feed-item";
import { SlotsContext } from "./feed-registry";
import { FeedSpecView } from "./feed-spec-view";

/** If a spec still breaks at render time, the card degrades to the plain version instead of the page. */
class CardBoundary extends Component<{ fallback: ReactNode; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}

function PlainCard({ item }: { item: TFeedItem }) {
  const title = String(item.data.title ?? item.data.decision ?? item.type);
  return (
    <div className="flex flex-col gap-1">
      <h2 className="text-base font-semibold">{title}</h2>
      <p className="text-sm text-stone-600 dark:text-stone-400">
        <LocalTime value={item.timestamp} />
      </p>
    </div>
  );
}

/** Items that are a line, not a card: a failing tracker, "all quiet" (calm, not a big red card). */
const LINE_TYPES: ReadonlySet<string> = new Set(["tracker-failing", "tracker-needs-attention", "trackers-quiet"]);
/** Invitations to set a source up: a quiet dashed card. */
const INVITATION_TYPES: ReadonlySet<string> = new Set(["weather-setup", "calendar-setup", "trackers-start"]);

function cardClass(type: string): string {
  if (LINE_TYPES.has(type)) return "rounded-lg border border-stone-200 px-3 py-2 dark:border-stone-800";
  if (INVITATION_TYPES.has(type)) return "rounded-xl border border-dashed border-stone-300 p-4 dark:border-stone-700";
  return "rounded-xl border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900";
}

export function FeedCard({ item }: { item: TFeedItem }) {
  const plain = <PlainCard item={item} />;
  return (
    <article data-testid="feed-card" data-item-id={item.id} data-item-type={item.type} className={cardClass(item.type)}>
      {item.ui ? (
        <CardBoundary fallback={plain}>
          <SlotsContext.Provider value={item.slots}>
            <FeedSpecView spec={item.ui} />
          </SlotsContext.Provider>
        </CardBoundary>
      ) : (
        plain
      )}
    </article>
  );
}
