import Link from "next/link";
import { AiStatusIndicator } from "./ai-status-indicator";
import { NavLinks } from "./nav-links";

export function SiteHeader() {
  return (
    <header className="border-b border-stone-200 bg-white/80 dark:border-stone-800 dark:bg-stone-950/80">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <div className="flex items-center gap-6">
          <Link href="/" className="text-lg font-semibold tracking-tight">
            Bellwether
          </Link>
          <nav aria-label="Main">
            <NavLinks />
          </nav>
        </div>
        <AiStatusIndicator />
      </div>
    </header>
  );
}
