import type { Metadata } from "next";
import { notFound } from "next/navigation";
// Plain values, not from the "use client" components (a server component would get client references).
import { PRUNED_DAYS_LIMIT, RUNS_PREVIEW_LIMIT, TIMELINE_PAGE_SIZE } from "@/components/trackers/page-queries";
import { SetMembers } from "@/components/trackers/set-members";
import { TrackerPage } from "@/components/trackers/tracker-page";
import { SET_MEMBERS_DEFAULT_LIMIT } from "@/contracts/set-members";
import { getQueryClient, HydrateClient, prefetch, trpc } from "@/server/api/rsc";

type TProps = { params: Promise<{ id: string }>; searchParams?: Promise<{ locked?: string | string[] }> };

/** "NOT_FOUND" when the tracker does not exist or is another person's (docs/design.md §9: the same answer). */
function failureCode(trackerId: string): string | undefined {
  // In-process, the error is the TRPCError itself: its `code`.
  const state = getQueryClient().getQueryState(trpc.tracker.get.queryKey({ trackerId }));
  return (state?.error as { code?: string } | null | undefined)?.code;
}

/**
 * The page's title is its decision. The overview is read once per request: this and the page share the request's
 * query client, so the page's prefetch below finds it fresh. Another person's tracker gets no title of its own.
 */
export async function generateMetadata({ params }: TProps): Promise<Metadata> {
  const { id } = await params;
  await prefetch(trpc.tracker.get.queryOptions({ trackerId: id }));
  const overview = getQueryClient().getQueryData(trpc.tracker.get.queryKey({ trackerId: id }));
  return { title: overview?.tracker.decision ?? "Tracker not found" };
}

export default async function TrackerRoute({ params, searchParams }: TProps) {
  const { id } = await params;
  // ?locked=N: the edit page just locked version N (it offers to re-judge the stored history under it).
  const locked = Number((await searchParams)?.locked);
  const justLocked = Number.isInteger(locked) && locked > 0 ? locked : null;
  await prefetch(trpc.tracker.get.queryOptions({ trackerId: id }));
  // A missing tracker, or another person's, is the not-found page (a real 404: nothing is streamed before this).
  if (failureCode(id) === "NOT_FOUND") notFound();
  // The member list's first page (the input SetMembers starts with); it also says whether the tracker watches a set.
  const membersOptions = trpc.tracker.setMembers.infiniteQueryOptions(
    { trackerId: id, sort: "name", status: "all", limit: SET_MEMBERS_DEFAULT_LIMIT },
    { getNextPageParam: (last) => last.nextCursor ?? undefined },
  );
  // Everything the page shows arrives with its HTML (the same query keys the client components use), so nothing
  // moves as data comes in and the timeline reads without JavaScript.
  await Promise.all([
    getQueryClient().prefetchInfiniteQuery(membersOptions),
    prefetch(trpc.tracker.series.queryOptions({ trackerId: id })),
    prefetch(trpc.tracker.runs.queryOptions({ trackerId: id, limit: RUNS_PREVIEW_LIMIT })),
    prefetch(trpc.tracker.prunedRunDays.queryOptions({ trackerId: id, limit: PRUNED_DAYS_LIMIT })),
    prefetch(trpc.tracker.rejudged.queryOptions({ trackerId: id })),
    prefetch(trpc.contextFile.list.queryOptions({ trackerId: id })),
    // The Notifications card's routing (components/notifications/tracker-routing.tsx).
    prefetch(trpc.notification.trackerRouting.queryOptions({ trackerId: id })),
    getQueryClient().prefetchInfiniteQuery(
      trpc.tracker.timeline.infiniteQueryOptions(
        { trackerId: id, limit: TIMELINE_PAGE_SIZE },
        { getNextPageParam: (last) => last.nextCursor ?? undefined },
      ),
    ),
  ]);
  // Only a tracker whose locked definition has a `set` part lists members (docs/sets.md).
  const watchesSet = getQueryClient().getQueryData(membersOptions.queryKey)?.pages[0]?.watchesSet === true;
  return (
    <HydrateClient>
      <TrackerPage trackerId={id} justLocked={justLocked} />
      {watchesSet ? (
        <div className="mt-6">
          <SetMembers trackerId={id} />
        </div>
      ) : null}
    </HydrateClient>
  );
}
