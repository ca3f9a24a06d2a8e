import Link from "next/link";
import { buttonPrimary } from "@/components/ui/button-styles";

export default function NotFound() {
  return (
    <section className="py-12 text-center">
      <h1 className="text-2xl font-semibold">Page not found</h1>
      <p className="mt-2 text-sm text-stone-600 dark:text-stone-400">There is nothing at this address.</p>
      <Link href="/" className={`${buttonPrimary} mt-6`}>
        Go to the feed
      </Link>
    </section>
  );
}
