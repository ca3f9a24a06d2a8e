import type { ReactNode } from "react";
import { requirePageUser } from "@/server/api/rsc";

/** Signed-in pages only: without a valid session, to /sign-in (or /setup-owner on first run). */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  await requirePageUser();
  return children;
}
