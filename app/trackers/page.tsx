import type { Metadata } from "next";
import { listInput, readListParams } from "@/components/trackers/tracker-filters";
import { TrackersList } from "@/components/trackers/trackers-list";
import { UnfinishedSetups } from "@/components/trackers/unfinished-setups";
import { PageHeader } from "@/components/ui/page-header";
import { getQueryClient, HydrateClient, prefetch, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Trackers" };

type TProps = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function TrackersPage({ searchParams }: TProps) {
  // `?show=failing&q=acme&after=…` (docs/trackers.md, "Paging, search and filters"): the page prefetches exactly the
  // query the list's client component starts with, so a linked view renders on the server and reads without JS.
  const raw = await searchParams;
  const params = readListParams((name) => {
    const value = raw[name];
    return Array.isArray(value) ? value[0] : value;
  });
  await Promise.all([
    getQueryClient().prefetchInfiniteQuery(
      trpc.tracker.listView.infiniteQueryOptions(listInput(params), {
        getNextPageParam: (last) => last.nextCursor ?? undefined,
        initialCursor: params.after,
      }),
    ),
    prefetch(trpc.tracker.unfinishedSetups.queryOptions()),
  ]);
  return (
    <>
      <PageHeader title="Trackers" description="Each tracker watches one thing for one decision." />
      <HydrateClient>
        <div className="space-y-10">
          <TrackersList />
          {/* The same list /trackers/new offers to resume (docs/trackers.md, "Unfinished setups"). */}
          <UnfinishedSetups intro="Setups you started but did not lock, and edits of live trackers not locked yet. Resume one where you left off, or discard it; a new setup left untouched for 14 days is discarded automatically." />
        </div>
      </HydrateClient>
    </>
  );
}
