import { z } from "zod";

/**
 * web.scrape's cache validators as the Tracker row keeps them (`pageValidators`, docs/refresh.md "Conditional
 * requests"): the ETag / Last-Modified of the last good 200, and what makes a 304 to them mean "unchanged" — the
 * address they were read from, the definition version, and the content hash that read left in the entity's state.
 */
export const ZPageValidatorsSchema = z.object({
  etag: z.string().nullable(),
  lastModified: z.string().nullable(),
  url: z.string(),
  version: z.number().int(),
  entityId: z.string(),
  contentHash: z.string(),
});
export type TPageValidators = z.infer<typeof ZPageValidatorsSchema>;

/** Stored validators, or null when there are none or they do not parse (then the page is fetched whole). */
export function parsePageValidators(value: unknown): TPageValidators | null {
  const parsed = ZPageValidatorsSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
