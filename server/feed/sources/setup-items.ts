import { buildSpec } from "@/contracts/feed-catalog";
import type { TFeedItem } from "@/contracts/feed-item";

/**
 * What a source shows while the user has not set it up: a calm invitation to the next step (issue #14 — not an
 * error chip). Low urgency, so the decisions come first; no slots, so the model is never asked about them.
 */
function invitation(id: string, type: string, now: Date, title: string, text: string, link: [string, string]) {
  return {
    id,
    sourceId: id.split(":")[0] as string,
    type,
    timestamp: now,
    data: { state: "not-configured" },
    signals: { urgency: 0.05, timeRelevance: "ambient" },
    ui: buildSpec("Stack", { direction: "vertical", gap: "sm" }, [
      { key: "title", type: "Heading", props: { text: title } },
      { key: "body", type: "Text", props: { text, tone: "muted" } },
      { key: "link", type: "Link", props: { href: link[0], label: link[1] } },
    ]),
  } satisfies TFeedItem;
}

/** Weather without a place: search for one by name in Settings (Open-Meteo geocoding). */
export function weatherSetupItem(now: Date): TFeedItem {
  return invitation(
    "weather:setup",
    "weather-setup",
    now,
    "Weather for your day",
    "Set your location and the feed shows the weather next to your decisions and events.",
    ["/settings#location", "Search for your place"],
  );
}

/** Calendar without a URL: add one (a private ICS address) in Settings. */
export function calendarSetupItem(now: Date): TFeedItem {
  return invitation(
    "calendar:setup",
    "calendar-setup",
    now,
    "Your calendar",
    "Add your calendar's ICS address and upcoming events appear here with what to prepare.",
    ["/settings", "Add a calendar URL in Settings"],
  );
}
