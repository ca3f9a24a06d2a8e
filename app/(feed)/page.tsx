import type { Metadata } from "next";
import { headers } from "next/headers";
import { FeedView } from "@/components/feed/feed-view";
import { PageHeader } from "@/components/ui/page-header";
import { getServerCaller, HydrateClient, prefetch, trpc } from "@/server/api/rsc";
import { resolveFeedTimeZone, TIME_ZONE_COOKIE, timeZoneFromCookieHeader } from "@/server/settings/time-zone";

export const metadata: Metadata = { title: "Feed" };

/**
 * The feed arrives with its HTML (docs/feed.md): read on the server through the same query the client component
 * uses, so the page is readable without JavaScript and nothing moves when it hydrates. No loading.tsx: its
 * Suspense boundary would stream the content hidden behind the skeleton, which only a script reveals. Its times are
 * in the person's zone from the first paint (docs/feed.md, "Time zone"): Settings', else the browser's from its
 * cookie, which the page writes for the next load.
 */
export default async function FeedPage() {
  const [settings, incoming] = await Promise.all([
    getServerCaller().then((caller) => caller.settings.feed()),
    headers(),
    prefetch(trpc.feed.get.queryOptions()),
  ]);
  const cookie = timeZoneFromCookieHeader(incoming.get("cookie"));
  const zone = resolveFeedTimeZone(settings.timezone, cookie);
  return (
    <>
      <PageHeader title="Feed" description="Changes that matter to your decisions, next to the context around them." />
      <HydrateClient>
        <FeedView timeZone={zone.zone} zoneCookie={{ name: TIME_ZONE_COOKIE, value: cookie }} />
      </HydrateClient>
    </>
  );
}
