import Link from "next/link";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { InboxLink } from "@/components/notifications/inbox-link";
import { AiStatusIndicator } from "./ai-status-indicator";
import { NavLinks } from "./nav-links";

/** The header: navigation, AI status and the signed-in account with Sign out; only the name when signed out. */
export function SiteHeader({ user }: { user: { name: string; email: string | null } | null }) {
  return (
    <header className="border-b border-stone-200 bg-white/80 dark:border-stone-800 dark:bg-stone-950/80">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <div className="flex flex-wrap items-center gap-x-6 gap-y-2">
          <Link href="/" className="text-lg font-semibold tracking-tight">
            Bellwether
          </Link>
          {user ? (
            <nav aria-label="Main">
              <NavLinks />
            </nav>
          ) : null}
        </div>
        {user ? (
          <div className="flex flex-wrap items-center gap-2">
            <InboxLink />
            <AiStatusIndicator />
            <span
              className="max-w-40 truncate text-xs text-stone-600 dark:text-stone-400"
              title={user.email ?? undefined}
              data-testid="signed-in-as"
            >
              {user.name}
            </span>
            <SignOutButton />
          </div>
        ) : null}
      </div>
    </header>
  );
}
