import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { TrackerPage } from "@/components/trackers/tracker-page";
import { getQueryClient, HydrateClient, prefetch, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Tracker" };

export default async function TrackerRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // Prefetch failures (e.g. not found) surface in the client component with their message.
  await prefetch(trpc.tracker.get.queryOptions({ trackerId: id }));
  // A missing tracker, or another person's (the same NOT_FOUND: DESIGN §9), is the not-found page.
  // (In-process, the error is the TRPCError itself: its `code`.)
  const failed = getQueryClient().getQueryState(trpc.tracker.get.queryKey({ trackerId: id }))?.error as {
    code?: string;
  } | null;
  if (failed?.code === "NOT_FOUND") notFound();
  return (
    <HydrateClient>
      <TrackerPage trackerId={id} />
    </HydrateClient>
  );
}
