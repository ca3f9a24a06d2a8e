import Link from "next/link";
import { buttonPrimary } from "@/components/ui/button-styles";

/**
 * No such member: the tracker is missing or another person's, it watches no set, or its set never listed this key
 * (docs/design.md §9: the same answer for all of them).
 */
export default function SetMemberNotFound() {
  return (
    <section className="py-12 text-center">
      <h1 className="text-2xl font-semibold">Member not found</h1>
      <p className="mx-auto mt-2 max-w-prose text-sm text-stone-600 dark:text-stone-400">
        There is no member at this address: its tracker may not watch a set, or the set never listed it.
      </p>
      <Link href="/trackers" className={`${buttonPrimary} mt-6`}>
        All trackers
      </Link>
    </section>
  );
}
