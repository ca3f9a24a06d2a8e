import type { Metadata } from "next";
import { FeedView } from "@/components/feed/feed-view";
import { PageHeader } from "@/components/ui/page-header";
import { HydrateClient, prefetch, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Feed" };

/**
 * The feed arrives with its HTML (docs/feed.md): read on the server through the same query the client component
 * uses, so the page is readable without JavaScript and nothing moves when it hydrates. No loading.tsx: its
 * Suspense boundary would stream the content hidden behind the skeleton, which only a script reveals. Its times are
 * in the person's zone from the first paint, as on every page (docs/feed.md, "Time zone").
 */
export default async function FeedPage() {
  await prefetch(trpc.feed.get.queryOptions());
  return (
    <>
      <PageHeader title="Feed" description="Changes that matter to your decisions, next to the context around them." />
      <HydrateClient>
        <FeedView />
      </HydrateClient>
    </>
  );
}
