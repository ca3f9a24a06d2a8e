"use client";

import { PageError } from "@/components/ui/page-error";

/** Shown when a page fails (components/ui/page-error.tsx). */
export default function ErrorPage(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError {...props} />;
}
