import type { Metadata } from "next";
import { memberKeyFromPageParam } from "@/components/trackers/set-member-href";
import { SetMemberPage } from "@/components/trackers/set-member-page";
import { MEMBER_CHANGES_DEFAULT_LIMIT } from "@/contracts/set-member";
import { getQueryClient, HydrateClient, prefetch, trpc } from "@/server/api/rsc";

type TProps = { params: Promise<{ id: string; key: string }> };

/** The page's title is the member's name and its tracker's decision; read once per request (shared query client). */
export async function generateMetadata({ params }: TProps): Promise<Metadata> {
  // Here Next passes the segment decoded (page and layout components get it re-encoded: set-member-href.ts).
  const { id: trackerId, key } = await params;
  await prefetch(trpc.tracker.setMember.queryOptions({ trackerId, key }));
  const data = getQueryClient().getQueryData(trpc.tracker.setMember.queryKey({ trackerId, key }));
  return { title: data ? `${data.member.name} · ${data.tracker.decision}` : "Member not found" };
}

/**
 * A set member's page (docs/trackers.md, "The member page"), rendered on the server with the member and the first
 * page of its changes, so it reads without JavaScript. layout.tsx has answered 404 already when there is no member.
 */
export default async function SetMemberRoute({ params }: TProps) {
  const { id: trackerId, key: param } = await params;
  const key = memberKeyFromPageParam(param);
  await Promise.all([
    prefetch(trpc.tracker.setMember.queryOptions({ trackerId, key })),
    getQueryClient().prefetchInfiniteQuery(
      trpc.tracker.memberChanges.infiniteQueryOptions(
        { trackerId, key, limit: MEMBER_CHANGES_DEFAULT_LIMIT },
        { getNextPageParam: (last) => last.nextCursor ?? undefined },
      ),
    ),
  ]);
  return (
    <HydrateClient>
      <SetMemberPage trackerId={trackerId} memberKey={key} />
    </HydrateClient>
  );
}
