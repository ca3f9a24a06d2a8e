"use client";

import { JSONUIProvider, Renderer } from "@json-render/react";
import { Component, type ReactNode } from "react";
import { LocalTime } from "@/components/format/local-time";
import type { TFeedItem } from "@/contracts/feed-item";
import { feedRegistry, SlotsContext } from "./feed-registry";

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
      <h3 className="text-base font-semibold">{title}</h3>
      <p className="text-sm text-stone-600 dark:text-stone-400">
        <LocalTime value={item.timestamp} />
      </p>
    </div>
  );
}

export function FeedCard({ item }: { item: TFeedItem }) {
  const plain = <PlainCard item={item} />;
  return (
    <article
      data-testid="feed-card"
      data-item-id={item.id}
      data-item-type={item.type}
      className="rounded-xl border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900"
    >
      {item.ui ? (
        <CardBoundary fallback={plain}>
          <SlotsContext.Provider value={item.slots}>
            <JSONUIProvider registry={feedRegistry}>
              <Renderer spec={item.ui} registry={feedRegistry} />
            </JSONUIProvider>
          </SlotsContext.Provider>
        </CardBoundary>
      ) : (
        plain
      )}
    </article>
  );
}
