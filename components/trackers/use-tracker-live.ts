"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/providers/trpc";
import type { TCheckOutcome } from "@/contracts/refresh-run";

export type TLiveState = "connecting" | "live" | "offline";

/** What a polite live region says when a run of this tracker ends or a change lands. */
export function announcementFor(
  event: { kind: "checked"; outcome: TCheckOutcome } | { kind: "changed"; materiality: string | null },
): string | null {
  if (event.kind === "changed") return event.materiality === null ? "Tracker updated" : null;
  switch (event.outcome) {
    case "material":
    case "notable":
    case "baseline":
      return "New change recorded";
    case "failed":
      return "Checked just now — the refresh failed";
    default:
      return "Checked just now — no change";
  }
}

/** The latest run of this tracker that ended, as the page heard it; `at` orders it against Refresh now's answer. */
export type TLastChecked = { runId: string; outcome: TCheckOutcome; at: number };

let arrivals = 0;
/**
 * Stamps what arrives on this page's streams in the order it arrived: tracker.events and Refresh now's own
 * stream are two connections, and their callbacks run in arrival order while React may render both later.
 */
export function arrivalStamp(): number {
  arrivals += 1;
  return arrivals;
}

/** How long a visible announcement stays before it goes (it says "just now"). */
const ANNOUNCEMENT_MS = 60_000;
/** Events that arrive together (a run's `checked` and its `changed`) reload once. */
const COALESCE_MS = 150;

/**
 * Keeps an open tracker page current: subscribes to its tracker's events (tracker.events, SSE) and, on each,
 * reloads the page's tracker queries in place and sets the announcement. The subscription resumes after the
 * instant the page's data was read (its server render), so a run that ended in between is not missed.
 */
export function useTrackerLive(trackerId: string): {
  live: TLiveState;
  announcement: { text: string; n: number };
  lastChecked: TLastChecked | null;
} {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [live, setLive] = useState<TLiveState>("connecting");
  const [announcement, setAnnouncement] = useState({ text: "", n: 0 });
  const [lastChecked, setLastChecked] = useState<TLastChecked | null>(null);
  const [since] = useState(() => {
    const readAt = queryClient.getQueryState(trpc.tracker.get.queryKey({ trackerId }))?.dataUpdatedAt;
    return String(readAt || Date.now());
  });
  const reload = useRef<ReturnType<typeof setTimeout> | null>(null);
  const clear = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (reload.current) clearTimeout(reload.current);
      if (clear.current) clearTimeout(clear.current);
    },
    [],
  );

  useSubscription(
    trpc.tracker.events.subscriptionOptions(
      { trackerId, lastEventId: since },
      {
        onStarted: () => setLive("live"),
        onData: ({ data }) => {
          if (data.kind === "checked") {
            // Stamped now, not when React renders: Refresh now compares it with when its own answer arrived.
            setLastChecked({ runId: data.runId, outcome: data.outcome, at: arrivalStamp() });
          }
          if (!reload.current) {
            reload.current = setTimeout(() => {
              reload.current = null;
              void queryClient.invalidateQueries({ queryKey: trpc.tracker.pathKey() });
            }, COALESCE_MS);
          }
          const text = announcementFor(data);
          if (text) {
            setAnnouncement((a) => ({ text, n: a.n + 1 }));
            if (clear.current) clearTimeout(clear.current);
            clear.current = setTimeout(() => setAnnouncement((a) => ({ ...a, text: "" })), ANNOUNCEMENT_MS);
          }
        },
        onError: () => setLive("offline"),
      },
    ),
  );
  return { live, announcement, lastChecked };
}
