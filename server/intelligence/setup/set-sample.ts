import { getCapability, type TSetMember } from "../../capabilities";
import type { TTrackerDefinition } from "../definition";
import type { TSetupSample } from "./bind-and-sample";
import { draftWithNotes } from "./fallback";
import { sampleJsonForModel } from "./prompt";
import { listingOfSample } from "./read-listing-sample";

/**
 * A sample that reads many members (docs/sets.md, "Drafting a set"): a listing page read with its plan, or a source
 * whose descriptor drafts sets (a feed, a place search). The members are what the capability's read-back lists — the
 * very values a refresh compares — and `draft` is the set the rules-mode drafter builds from them. The drafting agent
 * starts from that draft (code found the members and their fields; the agent judges which matter to the decision).
 */
export type TSetSample = {
  members: TSetMember[];
  draft: TTrackerDefinition;
  notes: string[];
};

export function setOfSample(sample: TSetupSample, decision: string): TSetSample | null {
  const drafted = draftWithNotes(sample.capability, sample.results, {
    decision,
    reading: sample.reading ?? null,
    listing: listingOfSample(sample),
  });
  if (!drafted.definition.set) return null;
  const members = getCapability(sample.capability)?.readBack(sample.input, sample.results).items ?? [];
  return { members, draft: drafted.definition, notes: drafted.notes };
}

/** How many members the agent reads in full: enough to see the fields' shapes, bounded so the prompt stays small. */
export const MEMBERS_FOR_MODEL = 6;
const VALUE_CHARS = 200;

/**
 * A set sample as the agent reads it (untrusted: callers wrap it): how many members, the first few with their values
 * (long text shortened), every value path the members have, and the code's set draft to start from.
 */
export function setSampleJsonForModel(set: TSetSample): string {
  const paths = new Set<string>();
  for (const m of set.members) for (const k of Object.keys(m.values)) paths.add(`/${k}`);
  return JSON.stringify({
    set: {
      members: set.members.length,
      valuePaths: [...paths],
      firstMembers: set.members.slice(0, MEMBERS_FOR_MODEL).map((m) => ({ key: m.key, values: shorten(m.values) })),
      codeDraft: set.draft,
    },
  });
}

function shorten(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [
      k,
      typeof v === "string" && v.length > VALUE_CHARS ? `${v.slice(0, VALUE_CHARS)} […]` : v,
    ]),
  );
}

/** The sample in the drafting agent's prompt: a set's members and code draft, else the page or place as it reads. */
export function agentSampleJson(sample: TSetupSample, decision: string): string {
  const set = setOfSample(sample, decision);
  return set ? setSampleJsonForModel(set) : sampleJsonForModel(sample);
}
