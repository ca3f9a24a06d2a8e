import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Feed" };

export default function FeedPage() {
  return (
    <>
      <PageHeader title="Feed" description="Changes that matter to your decisions, next to the context around them." />
      <EmptyState title="Nothing to show yet" action={{ href: "/trackers/new", label: "Create your first tracker" }}>
        <p>
          Start with a decision you need to stay on top of — “is this competitor pulling ahead?”, “did the venue change
          its hours?” — and point Bellwether at the page or place that answers it. Material changes will appear here.
        </p>
      </EmptyState>
    </>
  );
}
