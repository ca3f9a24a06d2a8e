import { TRPCError } from "@trpc/server";
import type { Metadata } from "next";
import { SetupChat } from "@/components/tracker-setup/setup-chat";
import { type TSetupSnapshot, toSetupSnapshot } from "@/components/tracker-setup/setup-view";
import { UnfinishedSetups } from "@/components/trackers/unfinished-setups";
import { PageHeader } from "@/components/ui/page-header";
import { getQueryClient, getServerCaller, HydrateClient, prefetch, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "New tracker" };

/** The queries of a resumed setup's price list and context files, when the chat shows them. */
function resumedPanels(initial: TSetupSnapshot) {
  const { sessionId, draft, locked } = initial;
  const trackerId = initial.trackerId ?? draft?.trackerId ?? null;
  return [
    ...(draft ? [trpc.setup.priceCandidates.queryOptions({ sessionId })] : []),
    ...(trackerId && !locked ? [trpc.contextFile.list.queryOptions({ trackerId })] : []),
  ];
}

export default async function NewTrackerPage({ searchParams }: { searchParams: Promise<{ session?: string }> }) {
  const { session } = await searchParams;
  const sessionId = typeof session === "string" && session ? session : null;
  const status = await getQueryClient().fetchQuery(trpc.system.status.queryOptions());
  const caller = await getServerCaller();
  // The conversation is loaded here, so a reload shows it at once (and resumes a turn still running).
  let initial: TSetupSnapshot | null = null;
  let notice: string | null = null;
  if (sessionId) {
    try {
      initial = toSetupSnapshot(await caller.setup.state({ sessionId }));
    } catch (error) {
      if (!(error instanceof TRPCError && error.code === "NOT_FOUND")) throw error;
      notice =
        "That setup conversation no longer exists (the oldest unfinished setups are closed). Start a new one below.";
    }
  }
  // Starting anew: the same unfinished-setups list as /trackers, its most recent first (docs/trackers.md).
  if (!initial) await prefetch(trpc.tracker.unfinishedSetups.queryOptions());
  // Resuming: what the chat's side panels read (the same inputs as components/tracker-setup/setup-chat.tsx's), so they
  // arrive with the HTML instead of a "Loading…" only a script replaces. Not the page view: its whole sample page would
  // travel twice (in the frame and in the dehydrated cache), and picking on it needs a script anyway.
  else await Promise.all(resumedPanels(initial).map((options) => prefetch(options)));
  return (
    <HydrateClient>
      {/* A conversation that edits a live tracker says so, as its own edit page does. */}
      {initial && initial.lockedVersion !== null ? (
        <PageHeader
          title="Edit definition"
          description={`Editing v${initial.lockedVersion + 1}: locking it creates the new version; v${initial.lockedVersion} keeps running until then.`}
        />
      ) : (
        <PageHeader
          title="New tracker"
          description="Say what you want to keep an eye on and why; I read one real sample, draft what to watch, and you lock it."
        />
      )}
      {initial ? null : (
        <div data-testid="resume-setups" className="mb-6">
          <UnfinishedSetups shownAtFirst={3} intro="Pick up where you left off, or start a new one below." />
        </div>
      )}
      <SetupChat key={sessionId ?? "new"} initial={initial} notice={notice} aiOn={status.ai.mode !== "rules"} />
    </HydrateClient>
  );
}
