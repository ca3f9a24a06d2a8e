import type { Metadata } from "next";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Trackers" };

export default function TrackersPage() {
  return (
    <>
      <PageHeader title="Trackers" description="Each tracker watches one thing for one decision." />
      <EmptyState title="No trackers yet" action={{ href: "/trackers/new", label: "Create your first tracker" }}>
        <p>
          A tracker pairs a decision with a source — a web page or a Google Maps place. Bellwether drafts what to watch
          from one real sample, you confirm it, and from then on only changes that matter are recorded.
        </p>
      </EmptyState>
    </>
  );
}
