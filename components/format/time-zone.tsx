"use client";

import { createContext, type ReactNode, useContext, useEffect } from "react";

/**
 * The zone every time on the page is written in (docs/feed.md, "Time zone"). The root layout resolves it on the
 * server for each request — Settings' zone, else the browser's from its cookie, else UTC — so the server's HTML and
 * the hydrated page show the same text.
 */
const TimeZoneContext = createContext<string>("UTC");

export function useTimeZone(): string {
  return useContext(TimeZoneContext);
}

/**
 * Provides the request's zone, and stores the browser's zone in its cookie when it differs, so the next page the
 * server renders can use it while Settings has none. Nothing on this page changes: what the server rendered stays.
 */
export function TimeZoneProvider({
  zone,
  cookie,
  children,
}: {
  zone: string;
  /** The cookie that tells the server the browser's zone, and what it holds now (null: not set yet). */
  cookie: { name: string; value: string | null };
  children: ReactNode;
}) {
  const { name, value } = cookie;
  useEffect(() => {
    const browser = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!browser || browser === value) return;
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser this app supports
    document.cookie = `${name}=${encodeURIComponent(browser)}; Path=/; Max-Age=31536000; SameSite=Lax`;
  }, [name, value]);
  return <TimeZoneContext.Provider value={zone}>{children}</TimeZoneContext.Provider>;
}
