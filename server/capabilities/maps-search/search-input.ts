import { z } from "zod";
import { type TMapsSearchInput, ZMapsSearchInputSchema } from "../../../contracts/maps-search";
import { parseSearchTarget, searchTargetToInput } from "./parse-search-target";

/**
 * maps.search's input: the contract's structured search (contracts/maps-search.ts), or the person's words alone in
 * `query` ("coffee near 51.52,-0.08 within 2 km"), read by parseSearchTarget. Setup binds a capability by one argument
 * (docs/capabilities.md, "One descriptor per capability"), so the words must be enough; the parser's refusal is the
 * input's error, in its own words. The result is always the structured search, and parsing that again gives it back
 * unchanged, so what a tracker stores is what its refreshes read.
 */
export const ZMapsSearchCapabilityInputSchema = ZMapsSearchInputSchema.transform((input, ctx): TMapsSearchInput => {
  // A center given is the structured form: its query is only what to look for.
  if (input.center) return input;
  const read = parseSearchTarget(input.query);
  if (!read.ok) {
    ctx.addIssue({ code: "custom", message: read.problem, path: ["query"], input: input.query });
    return z.NEVER;
  }
  return searchTargetToInput(read.target, input.maxResults);
});
