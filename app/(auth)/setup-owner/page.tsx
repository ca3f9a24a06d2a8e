import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/form-fields";
import { NewAccountForm } from "@/components/auth/new-account-form";
import { getPageUser, getRequestDb } from "@/server/api/rsc";
import { getAccessState, hasLegacyLocalData } from "@/server/auth";

export const metadata: Metadata = { title: "Create the owner account" };

/** First run: every page leads here until the owner account exists. */
export default async function SetupOwnerPage() {
  const db = await getRequestDb();
  if ((await getAccessState(db)).ownerId) redirect((await getPageUser()) ? "/" : "/sign-in");
  const upgrading = await hasLegacyLocalData(db);

  return (
    <AuthCard
      title="Create the owner account"
      intro={
        <>
          <p>Welcome to Bellwether. The owner signs in with this account and can invite other people.</p>
          {upgrading ? (
            <p className="mt-2 font-medium text-stone-800 dark:text-stone-200" data-testid="adopt-notice">
              Your existing trackers, timelines, settings and API tokens will belong to this account.
            </p>
          ) : null}
        </>
      }
    >
      <NewAccountForm kind="owner" submitLabel="Create the owner account" />
    </AuthCard>
  );
}
