import type { Metadata } from "next";
import type { ReactNode } from "react";
import { TimeZoneProvider } from "@/components/format/time-zone";
import { TRPCReactProvider } from "@/components/providers/trpc-provider";
import { SiteHeader } from "@/components/shell/site-header";
import { getPageTimeZone, getPageUser, HydrateClient, prefetch, trpc } from "@/server/api/rsc";
import { getEnv } from "@/server/env";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Bellwether", template: "%s · Bellwether" },
  description: "Keeps a timeline of only the changes that matter to your decisions.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The header's AI status arrives with the page. Reading request headers here makes every page dynamic,
  // so configuration is read at run time and `next build` never opens the database (and Next can put the
  // proxy's CSP nonce on its scripts). Signed out (sign-in, first run), the header shows the name only.
  const user = await getPageUser();
  // Every time on every page is written in the person's zone from the first paint (docs/feed.md, "Time zone").
  // The header's AI status and unread count arrive with the page too (readable without JavaScript).
  const [timeZone] = await Promise.all([
    getPageTimeZone(),
    user ? prefetch(trpc.system.status.queryOptions()) : null,
    user ? prefetch(trpc.notification.unreadCount.queryOptions()) : null,
  ]);
  const serverUrl = `http://127.0.0.1:${getEnv().PORT}/api/trpc`;

  return (
    <html lang="en">
      <body className="min-h-dvh">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:shadow dark:focus:bg-stone-900"
        >
          Skip to content
        </a>
        <TRPCReactProvider serverUrl={serverUrl}>
          <HydrateClient>
            <TimeZoneProvider zone={timeZone.zone} cookie={timeZone.cookie}>
              <SiteHeader user={user ? { name: user.name, email: user.email } : null} />
              <main id="main" tabIndex={-1} className="mx-auto max-w-5xl px-4 py-10 focus:outline-none">
                {children}
              </main>
            </TimeZoneProvider>
          </HydrateClient>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
