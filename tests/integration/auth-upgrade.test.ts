import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCaller } from "@/server/api/root";
import { authenticateApiToken, hashToken } from "@/server/api-tokens";
import { getAccessState, hasLegacyLocalData, resolveSessionUser } from "@/server/auth";
import { applyMigrations, pgliteRunner, readMigrations } from "@/server/db";
import { pgliteOptions } from "@/server/db-pglite";
import { PrismaClient } from "@/server/generated/prisma/client";
import { authRequest, browserHeaders, createTestAuth, sessionCookieFrom } from "../helpers/auth";
import { testTrpcContext } from "../helpers/trpc-context";

/**
 * Upgrading from the release before accounts: a database migrated up to that release and filled the way it
 * wrote rows (everything owned by the local user "local"), then migrated to this release. Creating the first
 * account must hand every row to the owner — trackers with their timelines, runs, setup chats, API tokens,
 * feed settings and the feed cache — and leave no local user behind.
 */
const ACCOUNTS_MIGRATION = "20261201013153_accounts";
let pglite: PGlite;
let db: PrismaClient;

const previousRelease = `
INSERT INTO "User" (id, name, "isLocal", "updatedAt") VALUES ('local', 'You', true, now());
INSERT INTO "Tracker" (id, "userId", decision, capability, "capabilityInput", status, "lockedVersion", "updatedAt")
VALUES ('trk_a', 'local', 'Is Acme undercutting us?', 'web.scrape', '{"url":"https://acme.example/pricing"}', 'active', 1, now()),
       ('trk_b', 'local', 'Did the venue change its hours?', 'maps.place', '{"placeId":"p1"}', 'paused', 1, now());
INSERT INTO "TrackerDefinition" (id, "trackerId", version, definition, "lockedAt")
VALUES ('def_a', 'trk_a', 1, '{"fields":[]}', now()), ('def_b', 'trk_b', 1, '{"fields":[]}', now());
INSERT INTO "RefreshRun" (id, "trackerId", trigger, status, outcome, "definitionVersion")
VALUES ('run_1', 'trk_a', 'cron', 'completed', 'baseline', 1), ('run_2', 'trk_a', 'cron', 'completed', 'material', 1),
       ('run_3', 'trk_b', 'manual', 'completed', 'baseline', 1);
INSERT INTO "TrackedEntity" (id, "trackerId", "entityKey") VALUES ('ent_a', 'trk_a', 'https://acme.example/pricing'),
       ('ent_b', 'trk_b', 'p1');
INSERT INTO "EntityCurrentState" ("entityId", fields, "contentHash", "definitionVersion", "lastCheckedAt", "updatedAt")
VALUES ('ent_a', '{"price":90}', 'h2', 1, now(), now()), ('ent_b', '{"hours":"9-5"}', 'h3', 1, now(), now());
INSERT INTO "EntityChange" (id, "entityId", "trackerId", "runId", "capturedAt", delta, materiality, decisions, "definitionVersion")
VALUES ('chg_1', 'ent_a', 'trk_a', 'run_1', now() - interval '2 days', '{"price":{"from":null,"to":100}}', 'baseline', '{}', 1),
       ('chg_2', 'ent_a', 'trk_a', 'run_2', now() - interval '1 day', '{"price":{"from":100,"to":90}}', 'material', '{}', 1),
       ('chg_3', 'ent_b', 'trk_b', 'run_3', now() - interval '1 day', '{"hours":{"from":null,"to":"9-5"}}', 'baseline', '{}', 1);
INSERT INTO "SetupSession" (id, "userId", "trackerId", status, "updatedAt") VALUES ('set_a', 'local', 'trk_a', 'locked', now());
INSERT INTO "ApiToken" (id, "userId", name, "tokenHash", prefix) VALUES ('tok_1', 'local', 'ci', '${hashToken("bw_upgrade-test-token")}', 'bw_upgrad');
INSERT INTO "UserSettings" ("userId", "locationName", memory, "updatedAt") VALUES ('local', 'London', 'our price is 95', now());
INSERT INTO "FeedEnhancement" ("userId", "inputHash", "updatedAt") VALUES ('local', 'abc', now());
`;

beforeAll(async () => {
  pglite = await PGlite.create(pgliteOptions(undefined, PGlite.defaultStartParams));
  const all = readMigrations();
  const before = all.filter((m) => m.name < ACCOUNTS_MIGRATION);
  expect(before.length).toBeGreaterThan(0);
  expect(all.some((m) => m.name === ACCOUNTS_MIGRATION)).toBe(true);
  await applyMigrations(pgliteRunner(pglite), before);
  await pglite.exec(previousRelease);
  // The upgrade: this release's migrations over the populated database.
  const upgraded = await applyMigrations(pgliteRunner(pglite), all);
  expect(upgraded.appliedNow).toContain(ACCOUNTS_MIGRATION);
  db = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
});
afterAll(async () => {
  await db.$disconnect();
  await pglite.close();
});

it("the first account adopts everything the local user had, in one step, and the local user is gone", async () => {
  expect(await hasLegacyLocalData(db)).toBe(true);
  expect((await getAccessState(db)).ownerId).toBeNull();
  const auth = createTestAuth(db);

  const res = await auth.handler(
    authRequest("/owner/create", { name: "Olive", email: "olive@example.com", password: "correct horse battery" }),
  );
  expect(res.status).toBe(200);
  const owner = await resolveSessionUser(db, browserHeaders(sessionCookieFrom(res)));
  expect(owner).toMatchObject({ role: "owner", email: "olive@example.com" });
  const ownerId = owner?.id ?? "";
  expect(ownerId).not.toBe("local");

  expect(await db.user.findUnique({ where: { id: "local" } })).toBeNull();
  expect(await hasLegacyLocalData(db)).toBe(false);
  expect(await db.user.count()).toBe(1);

  // Through the app's own read paths, as the owner.
  const caller = createCaller(testTrpcContext(db, owner));
  const trackers = await caller.tracker.list();
  expect(trackers.map((t) => t.id).sort()).toEqual(["trk_a", "trk_b"]);
  const timelineA = await caller.tracker.timeline({ trackerId: "trk_a" });
  expect(timelineA.items.map((c) => c.id)).toEqual(["chg_2", "chg_1"]);
  const timelineB = await caller.tracker.timeline({ trackerId: "trk_b" });
  expect(timelineB.items.map((c) => c.id)).toEqual(["chg_3"]);
  expect(await db.refreshRun.count()).toBe(3);
  expect(await db.entityCurrentState.count()).toBe(2);

  // Everything else the local user owned.
  expect(await db.setupSession.findUnique({ where: { id: "set_a" } })).toMatchObject({ userId: ownerId });
  expect((await authenticateApiToken(db, "Bearer bw_upgrade-test-token")).userId).toBe(ownerId);
  expect(await db.userSettings.findUnique({ where: { userId: ownerId } })).toMatchObject({
    locationName: "London",
    memory: "our price is 95",
  });
  expect(await db.feedEnhancement.findUnique({ where: { userId: ownerId } })).toMatchObject({ inputHash: "abc" });
});
