"use client";

import { useParams } from "next/navigation";
import { PageError } from "@/components/ui/page-error";

/** The member page failed to render: say so, offer a retry and the way back to its tracker. */
export default function SetMemberError(props: { error: Error & { digest?: string }; reset: () => void }) {
  const params = useParams<{ id: string }>();
  const back = params?.id
    ? { href: `/trackers/${encodeURIComponent(params.id)}`, label: "Back to the tracker" }
    : { href: "/trackers", label: "All trackers" };
  return <PageError {...props} title="This member could not be shown" back={back} />;
}
