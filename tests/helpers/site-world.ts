import { closePageWorkers } from "@/server/capabilities";
import { ensureLocalUser } from "@/server/users/ensure-local-user";
import { startFixtureSite, type TFixtureSite } from "../fixtures/site/site";
import { createTestDb, type TTestDb } from "./db";

/**
 * The common setup of tests that read pages: a fresh database, the local fixture site and the local owner.
 * `beforeAll(async () => ({ t, site, userId } = await openSiteWorld()))` and `afterAll(() => closeSiteWorld(t, site))`.
 */
export async function openSiteWorld(): Promise<{ t: TTestDb; site: TFixtureSite; userId: string }> {
  const t = await createTestDb();
  const site = await startFixtureSite();
  const userId = (await ensureLocalUser(t.db)).id;
  return { t, site, userId };
}

/** Closes what openSiteWorld opened (either may be missing when opening failed), and the page workers. */
export async function closeSiteWorld(t: TTestDb | undefined, site: TFixtureSite | undefined): Promise<void> {
  await site?.close();
  await t?.close();
  await closePageWorkers();
}
