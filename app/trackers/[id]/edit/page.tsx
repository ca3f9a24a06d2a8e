import { TRPCError } from "@trpc/server";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SetupChat } from "@/components/tracker-setup/setup-chat";
import { toSetupSnapshot } from "@/components/tracker-setup/setup-view";
import { PageHeader } from "@/components/ui/page-header";
import { getQueryClient, getServerCaller, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Edit definition" };

/** Reopens the tracker's setup chat with a draft of the next version (a copy of the one in force). */
export default async function EditDefinitionPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ fix?: string | string[] }>;
}) {
  const { id } = await params;
  // From a tracker that needs attention: the page view reads the page again and shows where the field was.
  const fixOnPage = (await searchParams).fix === "page";
  const caller = await getServerCaller();
  // A missing tracker, or another person's, is the not-found page (the same answer for both), not an error page.
  const opened = await caller.setup.openEdit({ trackerId: id }).catch((error: unknown) => {
    if (error instanceof TRPCError && error.code === "NOT_FOUND") notFound();
    throw error;
  });
  const { sessionId } = opened;
  const initial = toSetupSnapshot(await caller.setup.state({ sessionId }));
  const status = await getQueryClient().fetchQuery(trpc.system.status.queryOptions());
  return (
    <>
      <PageHeader
        title="Edit definition"
        description="Locking creates a new version; earlier versions stay readable and changes keep the version they were judged under."
      />
      <SetupChat key={sessionId} initial={initial} aiOn={status.ai.mode !== "rules"} fixOnPage={fixOnPage} />
    </>
  );
}
