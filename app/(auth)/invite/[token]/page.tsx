import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/auth/form-fields";
import { NewAccountForm } from "@/components/auth/new-account-form";
import { getPageUser, getRequestDb } from "@/server/api/rsc";
import { checkInvite, INVITE_PROBLEMS } from "@/server/auth";

export const metadata: Metadata = { title: "Accept an invitation" };

/** An invite link: says at once when it is expired, used or withdrawn; otherwise the new-account form. */
export default async function AcceptInvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const user = await getPageUser();
  if (user) {
    return (
      <AuthCard title="You are already signed in" intro={`Signed in as ${user.email ?? user.name}.`}>
        <p className="text-sm">
          To use this invite for a new account, sign out first.{" "}
          <Link href="/" className="font-medium underline">
            Go to the feed
          </Link>
        </p>
      </AuthCard>
    );
  }
  const status = await checkInvite(await getRequestDb(), token);
  if (status !== "pending") {
    return (
      <AuthCard title="This invite link cannot be used">
        <p role="alert" data-testid="invite-problem" className="text-sm text-red-700 dark:text-red-400">
          {INVITE_PROBLEMS[status]}
        </p>
        <Link href="/sign-in" className="mt-4 inline-block text-sm font-medium underline">
          Sign in instead
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Accept your invitation"
      intro="Create your Bellwether account. Your trackers and feed are yours alone."
    >
      <NewAccountForm kind="member" inviteToken={token} submitLabel="Create my account" />
    </AuthCard>
  );
}
