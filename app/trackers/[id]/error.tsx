"use client";

import { PageError } from "@/components/ui/page-error";

/** The tracker page failed to render: say so, offer a retry and the way back to the list. */
export default function TrackerError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <PageError {...props} title="This tracker could not be shown" back={{ href: "/trackers", label: "All trackers" }} />
  );
}
