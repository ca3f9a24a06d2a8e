import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/form-fields";
import { NewAccountForm } from "@/components/auth/new-account-form";
import { getPageUser, getRequestDb } from "@/server/api/rsc";
import { getAccessState } from "@/server/auth";

export const metadata: Metadata = { title: "Create an account" };

/** Open sign-up, when the owner has turned it on in Settings → Account. */
export default async function SignUpPage() {
  if (await getPageUser()) redirect("/");
  const access = await getAccessState(await getRequestDb());
  if (!access.ownerId) redirect("/setup-owner");

  if (!access.openSignUp) {
    return (
      <AuthCard title="Sign-up is by invitation" intro="Ask the owner of this Bellwether for an invite link.">
        <Link href="/sign-in" className="text-sm font-medium underline">
          Back to sign in
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Create an account" intro="Your trackers and feed are yours alone.">
      <NewAccountForm kind="member" submitLabel="Create the account" />
    </AuthCard>
  );
}
