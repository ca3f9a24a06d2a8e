import { TRPCError } from "@trpc/server";
import type { Metadata } from "next";
import Link from "next/link";
import { SetupChat } from "@/components/tracker-setup/setup-chat";
import { type TSetupSnapshot, toSetupSnapshot } from "@/components/tracker-setup/setup-view";
import { PageHeader } from "@/components/ui/page-header";
import { getQueryClient, getServerCaller, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "New tracker" };

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
  const resumable = initial ? [] : await caller.setup.openSessions();
  return (
    <>
      <PageHeader
        title="New tracker"
        description="Say what you want to keep an eye on and why; I read one real sample, draft what to watch, and you lock it."
      />
      {resumable.length > 0 ? (
        <nav
          aria-label="Unfinished setups"
          data-testid="resume-setups"
          className="mb-6 rounded-md border border-stone-200 p-3 text-sm dark:border-stone-800"
        >
          <p className="font-medium">Pick up where you left off:</p>
          <ul className="mt-1 list-disc pl-5">
            {resumable.map((r) => (
              <li key={r.sessionId}>
                <Link
                  className="underline hover:no-underline"
                  href={`/trackers/new?session=${encodeURIComponent(r.sessionId)}`}
                >
                  {r.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      <SetupChat key={sessionId ?? "new"} initial={initial} notice={notice} aiOn={status.ai.mode !== "rules"} />
    </>
  );
}
