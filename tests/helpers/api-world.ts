import type { TSessionUser } from "@/server/api/session-user";
import { createApiToken } from "@/server/api-tokens";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { createTestDb, type TTestDb } from "./db";
import { createActiveTracker } from "./trackers";

/**
 * The common setup of tests that call the API: a fresh database, the local owner, an API token named `tokenName`,
 * and one active price tracker on a page nobody fetches (the API is what is tested, not the page).
 */
export async function openApiWorld(
  tokenName: string,
): Promise<{ db: TTestDb; me: TSessionUser; token: string; trackerId: string }> {
  const db = await createTestDb();
  const me = await ensureLocalUser(db.db);
  const token = (await createApiToken(db.db, { userId: me.id, name: tokenName })).token;
  const { tracker } = await createActiveTracker(db.db, {
    capability: "web.scrape",
    capabilityInput: { url: "https://shop.example/item" },
    definition: {
      fields: [{ name: "price", type: "number", description: "Price" }],
      identityRule: { kind: "canonical_url" },
      materiality: { price: { kind: "numeric", relative: 0.05 } },
    },
    userId: me.id,
  });
  return { db, me, token, trackerId: tracker.id };
}
