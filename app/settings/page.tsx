import type { Metadata } from "next";
import type { ReactNode } from "react";
import { ApiTokensSection } from "@/components/api-tokens/api-tokens-section";
import { AccountSettings } from "@/components/auth/account-settings";
import { FeedSettings } from "@/components/settings/feed-settings";
import { UsageSettings } from "@/components/settings/usage-settings";
import { PageHeader } from "@/components/ui/page-header";
import { getQueryClient, HydrateClient, prefetch, requirePageUser, trpc } from "@/server/api/rsc";

export const metadata: Metadata = { title: "Settings" };

const MODE_NAMES = {
  openai: "OpenAI",
  "openai-compatible": "OpenAI-compatible server",
  rules: "Off — built-in rules",
} as const;

const ROLE_HINTS = {
  drafter: "drafts a tracker's fields from a sample",
  filler: "fills fields that code cannot extract",
  judge: "decides whether an ambiguous change matters",
  enhancer: "writes the feed's short connecting text",
} as const;

function Row({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="grid grid-cols-1 gap-1 py-3 sm:grid-cols-3 sm:gap-4">
      <dt className="text-sm font-medium text-stone-600 dark:text-stone-400">{label}</dt>
      <dd className="break-all text-sm sm:col-span-2" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `settings-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section
      aria-labelledby={id}
      className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id={id} className="text-base font-semibold">
        {title}
      </h2>
      <dl className="mt-2 divide-y divide-stone-200 dark:divide-stone-800">{children}</dl>
    </section>
  );
}

export default async function SettingsPage() {
  const user = await requirePageUser();
  // Shares the request's query cache with the layout, so the status is computed once per request.
  const status = await getQueryClient().fetchQuery(trpc.system.status.queryOptions());
  const { ai, database } = status;
  // The sections' data arrives with the page (no loading flash, and no client fetch still in flight when the
  // person acts — a create's refresh of the list would otherwise race the first load).
  await Promise.all([
    prefetch(trpc.settings.feed.queryOptions()),
    prefetch(trpc.settings.usage.queryOptions()),
    prefetch(trpc.account.sessions.queryOptions()),
    prefetch(trpc.apiToken.list.queryOptions()),
    ...(user.role === "owner"
      ? [prefetch(trpc.account.access.queryOptions()), prefetch(trpc.account.invites.queryOptions())]
      : []),
  ]);

  return (
    <HydrateClient>
      <PageHeader
        title="Settings"
        description="How this instance is configured. Values come from environment variables (see the README); keys and passwords are never shown."
      />
      <div className="space-y-6">
        <AccountSettings user={{ name: user.name, email: user.email, isOwner: user.role === "owner" }} />

        <section
          aria-labelledby="settings-feed"
          className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
        >
          <h2 id="settings-feed" className="text-base font-semibold">
            Feed
          </h2>
          <FeedSettings />
        </section>

        <section
          aria-labelledby="settings-usage"
          className="rounded-xl border border-stone-200 bg-white p-6 dark:border-stone-800 dark:bg-stone-900"
        >
          <h2 id="settings-usage" className="text-base font-semibold">
            Usage this month
          </h2>
          <UsageSettings />
        </section>

        <Section title="AI model">
          <Row label="Mode" testId="settings-ai-mode">
            {MODE_NAMES[ai.mode]}
          </Row>
          <Row label="Status">{ai.label}</Row>
          {ai.baseUrl ? (
            <Row label="Server" testId="settings-ai-base-url">
              <code>{ai.baseUrl}</code>
            </Row>
          ) : null}
          {(Object.keys(ROLE_HINTS) as (keyof typeof ROLE_HINTS)[]).map((role) => (
            <Row key={role} label={`Model: ${role}`} testId={`settings-ai-model-${role}`}>
              {ai.models[role] ? <code>{ai.models[role]}</code> : <span>none — built-in rules</span>}
              <span className="block text-xs text-stone-500">{ROLE_HINTS[role]}</span>
            </Row>
          ))}
          <Row label="Model: embeddings" testId="settings-ai-model-embedding">
            {ai.embeddingModel ? <code>{ai.embeddingModel}</code> : <span>none — full-text search only</span>}
          </Row>
        </Section>

        <Section title="Database">
          <Row label="Kind" testId="settings-database-kind">
            {database.kind === "embedded" ? "Embedded PostgreSQL (PGlite)" : "PostgreSQL"}
          </Row>
          <Row label="Location" testId="settings-database-location">
            <code>{database.location}</code>
          </Row>
          {status.dataDir ? (
            <Row label="Data directory" testId="settings-data-dir">
              <code>{status.dataDir}</code>
            </Row>
          ) : null}
        </Section>

        <ApiTokensSection />

        <Section title="About">
          <Row label="Version">{status.version}</Row>
          <Row label="Runtime">Node {status.runtime.node}</Row>
        </Section>
      </div>
    </HydrateClient>
  );
}
