import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteContextFile, retrieveContextChunks, saveContextFile, type TContextLimits } from "@/server/context";
import { makePdf, utf8 } from "../helpers/context-fixtures";
import { createPostgresTestDb, hasPostgres, type TPostgresTestDb } from "../helpers/db";
import { createActiveTracker } from "../helpers/trackers";

/** Context files on PostgreSQL: the same migration (generated tsvector + GIN), storage and scoped retrieval as on PGlite. */

const limits: TContextLimits = { maxBytes: 200_000, maxFiles: 5, kinds: ["text", "pdf"], maxTextChars: 100_000 };
const definition = {
  fields: [{ name: "price", type: "number", description: "Price" }],
  identityRule: { kind: "canonical_url" },
  materiality: {},
};

describe.skipIf(!hasPostgres)("context files on PostgreSQL", () => {
  let pg: TPostgresTestDb;
  beforeAll(async () => {
    pg = await createPostgresTestDb();
  });
  afterAll(async () => {
    await pg?.drop();
  });

  it("stores, indexes, retrieves only the tracker's own chunks, and deletes them", async () => {
    const ana = (await pg.db.user.create({ data: { name: "Ana", email: "ana@example.test" } })).id;
    const bo = (await pg.db.user.create({ data: { name: "Bo", email: "bo@example.test" } })).id;
    const tracker = async (userId: string) =>
      (
        await createActiveTracker(pg.db, {
          userId,
          capability: "web.scrape",
          capabilityInput: { url: "https://rival.example/" },
          definition,
        })
      ).tracker.id;
    const mine = await tracker(ana);
    const theirs = await tracker(bo);
    const save = (userId: string, trackerId: string, name: string, bytes: Uint8Array) =>
      saveContextFile(pg.db, { userId, trackerId, name, mediaType: "", bytes, limits });

    const { file } = await save(ana, mine, "prices.pdf", await makePdf([["Intro"], ["our price is 10.00 USD"]]));
    await save(bo, theirs, "prices.txt", utf8("Bo's price is 7.00 USD"));

    const found = await retrieveContextChunks(pg.db, {
      userId: ana,
      trackerId: mine,
      query: "competitor price 9.90",
      limit: 5,
    });
    expect(found.map((c) => [c.fileName, c.location, c.text])).toEqual([
      ["prices.pdf", "p. 2", "our price is 10.00 USD"],
    ]);
    const indexes = await pg.db.$queryRaw<{ def: string }[]>`
      SELECT indexdef AS def FROM pg_indexes WHERE tablename = 'ContextChunk' AND indexdef ILIKE '%gin%'`;
    expect(indexes).toHaveLength(1);

    await deleteContextFile(pg.db, { userId: ana, trackerId: mine, fileId: file.id });
    expect(await pg.db.contextChunk.count({ where: { trackerId: mine } })).toBe(0);
    expect(await pg.db.contextChunk.count({ where: { trackerId: theirs } })).toBe(1);
  });
});
