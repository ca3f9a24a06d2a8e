import type { Metadata } from "next";
import { TrackersList } from "@/components/trackers/trackers-list";
import { PageHeader } from "@/components/ui/page-header";
import { HydrateClient, prefetch, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Trackers" };

export default async function TrackersPage() {
  await prefetch(trpc.tracker.listView.queryOptions());
  return (
    <>
      <PageHeader title="Trackers" description="Each tracker watches one thing for one decision." />
      <HydrateClient>
        <TrackersList />
      </HydrateClient>
    </>
  );
}
