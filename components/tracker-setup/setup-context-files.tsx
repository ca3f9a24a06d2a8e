import { ContextFiles } from "@/components/trackers/context-files";

/**
 * Context files while drafting (issue 16): attached to the draft tracker, so the judge has them from the first
 * refresh; in rules mode the next message turns a stated "our price is 10.00" into a rule on the card.
 */
export function SetupContextFiles({ trackerId }: { trackerId: string }) {
  return (
    <section
      aria-labelledby="setup-context-files"
      data-testid="setup-context-files"
      className="rounded-xl border border-stone-200 bg-white p-4 dark:border-stone-800 dark:bg-stone-900"
    >
      <h2 id="setup-context-files" className="mb-2 text-base font-semibold">
        Context files
      </h2>
      <ContextFiles trackerId={trackerId} />
    </section>
  );
}
