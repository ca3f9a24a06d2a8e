import type { Metadata } from "next";
import { TrackerPage } from "@/components/trackers/tracker-page";
import { HydrateClient, prefetch, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Tracker" };

export default async function TrackerRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // Prefetch failures (e.g. not found) surface in the client component with their message.
  await prefetch(trpc.tracker.get.queryOptions({ trackerId: id }));
  return (
    <HydrateClient>
      <TrackerPage trackerId={id} />
    </HydrateClient>
  );
}
