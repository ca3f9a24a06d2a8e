import type { Metadata } from "next";
import { FeedView } from "@/components/feed/feed-view";
import { PageHeader } from "@/components/ui/page-header";

export const metadata: Metadata = { title: "Feed" };

export default function FeedPage() {
  return (
    <>
      <PageHeader title="Feed" description="Changes that matter to your decisions, next to the context around them." />
      <FeedView />
    </>
  );
}
