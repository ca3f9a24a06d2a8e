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
        {/* At 390 px the brand and the navigation share the first row and the rest the second (two rows, not three). */}
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2 sm:gap-x-6">
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
              // On a phone the name gives way to the navigation (Settings shows the account).
              className="hidden max-w-40 truncate text-xs text-stone-600 sm:inline dark:text-stone-400"
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
