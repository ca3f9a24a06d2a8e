import type { Metadata } from "next";
import Link from "next/link";
import { SetupChat } from "@/components/tracker-setup/setup-chat";
import { PageHeader } from "@/components/ui/page-header";
import { getQueryClient, getServerCaller, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "New tracker" };

export default async function NewTrackerPage({ searchParams }: { searchParams: Promise<{ session?: string }> }) {
  const { session } = await searchParams;
  const status = await getQueryClient().fetchQuery(trpc.system.status.queryOptions());
  const resumable = session ? [] : await (await getServerCaller()).setup.openSessions();
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
      <SetupChat
        key={session ?? "new"}
        initialSessionId={typeof session === "string" && session ? session : null}
        aiOn={status.ai.mode !== "rules"}
      />
    </>
  );
}
