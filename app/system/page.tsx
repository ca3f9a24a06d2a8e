import type { Metadata } from "next";
import Link from "next/link";
import { HostsSection } from "@/components/system/hosts-section";
import { SchedulerSection } from "@/components/system/scheduler-section";
import { DetailRow, DetailSection } from "@/components/ui/detail-list";
import { PageHeader } from "@/components/ui/page-header";
import { getServerCaller } from "@/server/api/rsc";

export const metadata: Metadata = { title: "System" };

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

const hint = "block text-xs text-stone-600 dark:text-stone-400";

/**
 * How this server runs, read-only: AI provider and models, database, versions. Values come from environment
 * variables; where the data lives is shown to the owner only (server/system/get-system-status.ts). No loading.tsx: its
 * Suspense boundary would stream the page hidden behind a skeleton that only a script reveals.
 */
export default async function SystemPage() {
  const caller = await getServerCaller();
  const [details, scheduler] = await Promise.all([caller.system.details(), caller.system.scheduler()]);
  const { ai, database } = details;

  return (
    <>
      <PageHeader
        title="System"
        description={
          <>
            How this Bellwether server is configured (read-only). Values come from environment variables (see
            docs/configuration.md); keys and passwords are never shown. Your own preferences are in{" "}
            <Link href="/settings" className="underline underline-offset-2">
              Settings
            </Link>
            .
          </>
        }
      />
      <div className="space-y-6">
        <DetailSection title="AI model">
          <DetailRow label="Mode" testId="system-ai-mode">
            {MODE_NAMES[ai.mode]}
          </DetailRow>
          <DetailRow label="Status">{ai.label}</DetailRow>
          {ai.baseUrl ? (
            <DetailRow label="Server" testId="system-ai-base-url">
              <code>{ai.baseUrl}</code>
            </DetailRow>
          ) : null}
          {(Object.keys(ROLE_HINTS) as (keyof typeof ROLE_HINTS)[]).map((role) => (
            <DetailRow key={role} label={`Model: ${role}`} testId={`system-ai-model-${role}`}>
              {ai.models[role] ? <code>{ai.models[role]}</code> : <span>none — built-in rules</span>}
              <span className={hint}>{ROLE_HINTS[role]}</span>
            </DetailRow>
          ))}
          <DetailRow label="Model: embeddings" testId="system-ai-model-embedding">
            {ai.embeddingModel ? <code>{ai.embeddingModel}</code> : <span>none — full-text search only</span>}
          </DetailRow>
        </DetailSection>

        <DetailSection title="Database">
          <DetailRow label="Kind" testId="system-database-kind">
            {database.kind === "embedded" ? "Embedded PostgreSQL (PGlite)" : "PostgreSQL"}
          </DetailRow>
          {database.location !== null ? (
            <DetailRow label="Location" testId="system-database-location">
              <code>{database.location}</code>
            </DetailRow>
          ) : null}
          {details.dataDir ? (
            <DetailRow label="Data directory" testId="system-data-dir">
              <code>{details.dataDir}</code>
            </DetailRow>
          ) : null}
          {details.hiddenFromMembers ? (
            <DetailRow label="Location">
              <span data-testid="system-location-hidden">
                Only the owner of this Bellwether sees where data is stored.
              </span>
            </DetailRow>
          ) : null}
        </DetailSection>

        <SchedulerSection scheduler={scheduler} />

        <HostsSection hosts={scheduler.hosts} />

        <DetailSection title="About">
          <DetailRow label="Version" testId="system-version">
            {details.version}
          </DetailRow>
          <DetailRow label="Runtime" testId="system-runtime">
            Node {details.runtime.node} · {details.runtime.platform}
          </DetailRow>
        </DetailSection>
      </div>
    </>
  );
}
