import type { Metadata } from "next";
import { TrackersList } from "@/components/trackers/trackers-list";
import { UnfinishedSetups } from "@/components/trackers/unfinished-setups";
import { PageHeader } from "@/components/ui/page-header";
import { HydrateClient, prefetch, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Trackers" };

export default async function TrackersPage() {
  await Promise.all([
    prefetch(trpc.tracker.listView.queryOptions()),
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
