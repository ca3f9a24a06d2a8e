import { ZListingPlanSchema } from "@/contracts/definition/listing-plan";
import {
  detectListingInWorker,
  getCapability,
  parseCapabilityInput,
  type TCapabilityEnvelope,
  type TPageLimits,
  WEB_SCRAPE,
} from "../../capabilities";
import type { TListingDraft } from "./draft-listing-set";

/** Said when a set decision's page has no listing: the single-page draft stands. */
export const NO_LISTING = "I could not find a repeated list of items on this page, so I watch it as one page.";

export type TListingSample =
  | { ok: true; input: Record<string, unknown>; envelope: TCapabilityEnvelope<unknown>; members: number }
  | { ok: false; why: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A set decision on a web page (decision-wants-set.ts): is the sample a listing (docs/sets.md)? The sample's HTML is
 * asked once, in the page worker (it is untrusted; docs/page-reading.md). A plan found goes into the capability input
 * as `listing`, and the page is read again with it through the same capability call: the sample's results and its
 * read-back's members are then exactly what the locked tracker's refreshes read and compare against, not a copy of
 * web.scrape's listing output built here. Never throws: whatever fails leaves the single-page sample, said in words.
 */
export async function readListingSample(input: {
  /** The page as first read (web.scrape's results, with its HTML). */
  page: Record<string, unknown>;
  capabilityInput: Record<string, unknown>;
  call: (capabilityInput: unknown) => Promise<TCapabilityEnvelope<unknown>>;
  limits: TPageLimits;
  signal?: AbortSignal | undefined;
}): Promise<TListingSample> {
  const { page } = input;
  const url =
    typeof page.finalUrl === "string"
      ? page.finalUrl
      : typeof input.capabilityInput.url === "string"
        ? input.capabilityInput.url
        : "";
  if (typeof page.html !== "string" || !page.html) return { ok: false, why: NO_LISTING };
  // A page the worker cannot read within its budget is watched as one page, like a page without a list.
  const detected = await detectListingInWorker(page.html, url, input.limits, { signal: input.signal }).catch(
    () => null,
  );
  if (!detected) return { ok: false, why: NO_LISTING };
  const found = `I found ${detected.why.replace(/\.$/, "")}`;
  let listingInput: unknown;
  try {
    listingInput = parseCapabilityInput(WEB_SCRAPE, { ...input.capabilityInput, listing: detected.plan });
  } catch {
    listingInput = null;
  }
  // An input schema without `listing` would drop the plan silently: then the page cannot be watched as a set.
  if (!isRecord(listingInput) || !ZListingPlanSchema.safeParse(listingInput.listing).success)
    return { ok: false, why: `${found}, but web pages cannot be watched as a set yet, so I watch it as one page.` };
  const envelope = await input.call(listingInput);
  if (envelope.status !== "completed" || !envelope.results) {
    const why = envelope.error?.message ?? "the page returned no data";
    return { ok: false, why: `${found}, but reading them as a set failed (${why}), so I watch it as one page.` };
  }
  const members = getCapability(WEB_SCRAPE)?.readBack(listingInput, envelope.results).items;
  if (!members?.length)
    return { ok: false, why: `${found}, but reading them as a set gave none, so I watch it as one page.` };
  return { ok: true, input: listingInput, envelope, members: members.length };
}

/**
 * The listing a sample is watched as: the plan in its input and how many members its read-back lists; null for every
 * other sample. What the rules-mode drafter drafts a set from (draft-listing-set.ts).
 */
export function listingOfSample(sample: {
  capability: string;
  input: unknown;
  results: unknown;
}): TListingDraft | null {
  if (sample.capability !== WEB_SCRAPE || !isRecord(sample.input)) return null;
  const plan = ZListingPlanSchema.safeParse(sample.input.listing);
  if (!plan.success) return null;
  const members = getCapability(WEB_SCRAPE)?.readBack(sample.input, sample.results).items?.length ?? 0;
  return members > 0 ? { plan: plan.data, members } : null;
}
