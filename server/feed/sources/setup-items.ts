import { buildSpec, type TSpecNode } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";

/**
 * A card that is not news but the next step (docs/feed.md): a source the user has not set up, no tracker yet, all
 * quiet. Calm — muted text and a link, never an error chip; low urgency, so the decisions come first; no slots, so
 * the model is never asked about it.
 */
export function noticeItem(input: {
  id: string;
  type: string;
  now: Date;
  title?: string;
  text: string;
  link: { href: string; label: string };
  urgency?: number;
}): TFeedItem {
  const children: TSpecNode[] = [];
  if (input.title) children.push({ key: "title", type: "Heading", props: { text: input.title } });
  children.push(
    { key: "body", type: "Text", props: { text: input.text, tone: "muted" } },
    { key: "link", type: "Link", props: input.link },
  );
  return {
    id: input.id,
    sourceId: input.id.split(":")[0] as string,
    type: input.type,
    timestamp: input.now,
    data: { state: input.type },
    signals: { urgency: input.urgency ?? 0.05, timeRelevance: "ambient" },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, children),
  };
}

/** Weather without a place: search for one by name in Settings (Open-Meteo geocoding). */
export function weatherSetupItem(now: Date): TFeedItem {
  return noticeItem({
    id: "weather:setup",
    type: "weather-setup",
    now,
    title: "Weather for your day",
    text: "Set your location and the feed shows the weather next to your decisions and events.",
    link: { href: "/settings#location", label: "Search for your place" },
  });
}

/** Calendar without a URL: add one (a private ICS address) in Settings. */
export function calendarSetupItem(now: Date): TFeedItem {
  return noticeItem({
    id: "calendar:setup",
    type: "calendar-setup",
    now,
    title: "Your calendar",
    text: "Add your calendar's ICS address and upcoming events appear here with what to prepare.",
    link: { href: "/settings", label: "Add a calendar URL in Settings" },
  });
}
