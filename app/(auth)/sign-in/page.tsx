import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { AuthCard } from "@/components/auth/form-fields";
import { safeNext } from "@/components/auth/safe-next";
import { SignInForm } from "@/components/auth/sign-in-form";
import { getPageUser, getRequestDb } from "@/server/api/rsc";
import { getAccessState } from "@/server/auth";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  if (await getPageUser()) redirect(safeNext(next));
  const access = await getAccessState(await getRequestDb());
  if (!access.ownerId) redirect("/setup-owner");

  return (
    <AuthCard title="Sign in" intro="Sign in to your Bellwether account.">
      <SignInForm next={next} />
      <div className="mt-6 space-y-2 text-sm text-stone-600 dark:text-stone-400">
        {access.openSignUp ? (
          <p>
            No account yet?{" "}
            <Link href="/sign-up" className="font-medium underline">
              Create one
            </Link>
            .
          </p>
        ) : (
          <p>No account yet? Ask the owner of this Bellwether for an invite link.</p>
        )}
        <p>Forgot your password? The owner can reset it from the command line (see docs/accounts.md).</p>
      </div>
    </AuthCard>
  );
}
