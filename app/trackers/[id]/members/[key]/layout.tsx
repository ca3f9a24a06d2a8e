import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { memberKeyFromPageParam } from "@/components/trackers/set-member-href";
import { getQueryClient, prefetch, trpc } from "@/server/api/rsc";

type TProps = { children: ReactNode; params: Promise<{ id: string; key: string }> };

/**
 * Whether the member exists, decided before anything streams, so another person's tracker, a tracker that watches no
 * set and an unknown key are a real 404 (docs/design.md §9: one answer for all of them). The read lands in the
 * request's query client, where the page finds it fresh. No loading.tsx: its Suspense boundary would stream the page
 * hidden behind a skeleton that only a script reveals (the page reads without JavaScript, as the feed does).
 */
export default async function SetMemberLayout({ children, params }: TProps) {
  const { id: trackerId, key: param } = await params;
  const key = memberKeyFromPageParam(param);
  await prefetch(trpc.tracker.setMember.queryOptions({ trackerId, key }));
  // In-process, the error is the TRPCError itself: its `code`. A key over the contract's bound is no member either.
  const state = getQueryClient().getQueryState(trpc.tracker.setMember.queryKey({ trackerId, key }));
  const code = (state?.error as { code?: string } | null | undefined)?.code;
  if (code === "NOT_FOUND" || code === "BAD_REQUEST") notFound();
  return children;
}
