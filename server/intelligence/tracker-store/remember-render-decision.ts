import type { TDb } from "../../db";

/**
 * web.scrape `render: "auto"` found the tracker's page to be an app shell (docs/page-reading.md, "Pages that need a browser"): remember it in the
 * tracker's stored capability input (`autoRender: true`), which the refresh already loads with the lease, so
 * later refreshes render straight away instead of fetching the shell first — no new column, no extra read on
 * the hot path. Written once per tracker (plain pages write nothing: the fetch they do anyway is the probe).
 * A JSON merge, so a concurrent edit of the input's other keys is kept; a no-op unless render is still auto.
 */
export async function rememberRenderDecision(
  db: TDb,
  input: { trackerId: string; autoRender: boolean },
): Promise<void> {
  await db.$executeRaw`
    UPDATE "Tracker"
    SET "capabilityInput" = "capabilityInput"::jsonb || jsonb_build_object('autoRender', ${input.autoRender}::boolean)
    WHERE "id" = ${input.trackerId} AND "capability" = 'web.scrape'
      AND COALESCE("capabilityInput"::jsonb ->> 'render', 'auto') = 'auto'`;
}
