import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  deleteContextFile,
  listContextFiles,
  retrieveContextChunks,
  saveContextFile,
  type TContextLimits,
} from "@/server/context";
import type { TDb } from "@/server/db";
import { startModelServer, type TModelServer } from "../fixtures/model-server/server";
import { utf8 } from "./context-fixtures";
import { createActiveTracker } from "./trackers";

/**
 * The embeddings path of context files (docs/context-files.md, embeddings), the same scenarios on PGlite and on PostgreSQL: the real
 * @ai-sdk/openai embedding client against the fixture model server's /v1/embeddings (hashed words and trigrams),
 * vectors stored in the chunk rows' double precision[] column, hybrid retrieval scoped by owner and tracker.
 */

const limits: TContextLimits = { maxBytes: 200_000, maxFiles: 5, kinds: ["text", "markdown"], maxTextChars: 100_000 };
const definition = {
  fields: [{ name: "price", type: "number", description: "Price" }],
  identityRule: { kind: "canonical_url" },
  materiality: {},
};
/** Shares no word with the query below once stemmed ("pricelist", "cheapest" ≠ "price", "list", "cheaper"). */
const PRICE_LIST = "Our pricelist: the cheapest tier costs 10.00 a month.";
const QUERY = "cheaper price list";

export function describeContextEmbeddings(label: string, open: () => Promise<{ db: TDb; close: () => Promise<void> }>) {
  describe(`context-file embeddings (${label})`, () => {
    let db: TDb;
    let close: () => Promise<void>;
    let server: TModelServer;
    let model: ReturnType<ReturnType<typeof createOpenAI>["embedding"]>;
    let ana: string;
    let bo: string;
    let mine: string;
    let myOther: string;
    let theirs: string;

    beforeAll(async () => {
      ({ db, close } = await open());
      server = await startModelServer();
      model = createOpenAI({ baseURL: server.url, apiKey: "test" }).embedding("fixture-embedding");
      ana = (await db.user.create({ data: { name: "Ana", email: "ana@example.test" } })).id;
      bo = (await db.user.create({ data: { name: "Bo", email: "bo@example.test" } })).id;
      const tracker = async (userId: string, url: string) =>
        (await createActiveTracker(db, { userId, capability: "web.scrape", capabilityInput: { url }, definition }))
          .tracker.id;
      mine = await tracker(ana, "https://rival.example/pricing");
      myOther = await tracker(ana, "https://other.example/pricing");
      theirs = await tracker(bo, "https://rival.example/pricing");
    });
    afterAll(async () => {
      await server?.close();
      await close?.();
    });
    beforeEach(() => server.reset());

    const save = (userId: string, trackerId: string, name: string, text: string, replaceFileId?: string) =>
      saveContextFile(db, {
        userId,
        trackerId,
        name,
        mediaType: "text/plain",
        bytes: utf8(text),
        replaceFileId: replaceFileId ?? null,
        limits,
        embeddingModel: model,
      });
    const retrieve = (userId: string, trackerId: string, query: string, limit: number, withVectors = true) =>
      retrieveContextChunks(db, { userId, trackerId, query, limit, embeddingModel: withVectors ? model : null });

    it("embeds the chunks on upload (the fixture server saw them) and retrieves by vector what full text misses", async () => {
      const { file } = await save(ana, mine, "prices.txt", PRICE_LIST);
      expect(file.embeddingStatus).toBe("ready");
      const embeddingRequests = server.requests.filter((r) => r.path === "/v1/embeddings");
      expect(embeddingRequests).toHaveLength(1);
      expect(embeddingRequests[0]?.body).toMatchObject({ model: "fixture-embedding", input: [PRICE_LIST] });
      const [row] = await db.$queryRaw<{ dims: number; norm: number }[]>`
        SELECT cardinality("embedding") AS dims, sqrt((SELECT sum(v * v) FROM unnest("embedding") AS v)) AS norm
        FROM "ContextChunk" WHERE "fileId" = ${file.id}`;
      expect(row?.dims).toBe(256);
      expect(row?.norm).toBeCloseTo(1, 6);
      // The same tracker also holds an unrelated note, so the "all chunks fit" fallback cannot return everything.
      await save(ana, mine, "offsite.txt", "Team offsite agenda and travel booking.");
      const usage = await db.modelUsage.findMany({ where: { userId: ana, kind: "embedding" } });
      expect(usage.length).toBeGreaterThanOrEqual(2);

      expect(await retrieve(ana, mine, QUERY, 1, false)).toEqual([]); // full text alone: no shared word
      server.reset();
      const found = await retrieve(ana, mine, QUERY, 1);
      expect(found.map((c) => [c.fileName, c.text])).toEqual([["prices.txt", PRICE_LIST]]);
      expect(server.requests.map((r) => [r.path, r.summary.lastUser])).toEqual([["/v1/embeddings", QUERY]]);
      // A query close to nothing the tracker holds retrieves nothing (and the fallback needs all chunks to fit).
      expect(await retrieve(ana, mine, "weather forecast rain tomorrow", 1)).toEqual([]);
    });

    it("fuses full-text and vector ranks: a word match and a near match both come back", async () => {
      const found = await retrieve(ana, mine, "offsite and a cheaper price list", 2);
      expect(found.map((c) => c.fileName).sort()).toEqual(["offsite.txt", "prices.txt"]);
    });

    it("never retrieves another tracker's or another person's chunks, by vector either", async () => {
      // The very same text elsewhere: its vector is as close as can be, and still out of scope. Each tracker also
      // holds an unrelated note, so with limit 1 only the vector path can answer (the "all fit" fallback cannot).
      await save(ana, myOther, "prices.txt", `${PRICE_LIST} Other shop.`);
      await save(ana, myOther, "offsite.txt", "Team offsite agenda and travel booking.");
      const bosFile = (await save(bo, theirs, "prices.txt", PRICE_LIST)).file;
      await save(bo, theirs, "offsite.txt", "Team offsite agenda and travel booking.");
      const myPrices = await db.contextFile.findFirstOrThrow({ where: { trackerId: mine, name: "prices.txt" } });

      const found = await retrieve(ana, mine, QUERY, 1);
      expect(found.map((c) => [c.fileId, c.text])).toEqual([[myPrices.id, PRICE_LIST]]);
      const other = await retrieve(ana, myOther, QUERY, 1);
      expect(other.map((c) => c.text)).toEqual([`${PRICE_LIST} Other shop.`]);
      const bos = await retrieve(bo, theirs, QUERY, 1);
      expect(bos.map((c) => c.fileId)).toEqual([bosFile.id]);
      // Ana naming Bo's tracker, or Bo naming Ana's, gets nothing: owner AND tracker are in the WHERE clause.
      expect(await retrieve(ana, theirs, QUERY, 10)).toEqual([]);
      expect(await retrieve(bo, mine, QUERY, 10)).toEqual([]);
    });

    it("replacing re-embeds; deleting removes the chunks and their vectors", async () => {
      const before = (await listContextFiles(db, { userId: ana, trackerId: mine, limits })).files;
      const prices = before.find((f) => f.name === "prices.txt");
      expect(prices?.embeddingStatus).toBe("ready");
      server.reset();
      const { file } = await save(
        ana,
        mine,
        "prices.txt",
        "Discounting strategy: never undercut wholesalers.",
        prices?.id,
      );
      expect(file.embeddingStatus).toBe("ready");
      expect(server.requests.filter((r) => r.path === "/v1/embeddings")).toHaveLength(1);
      const found = await retrieve(ana, mine, "discounted wholesale", 1);
      expect(found.map((c) => c.text)).toEqual(["Discounting strategy: never undercut wholesalers."]);
      expect(await retrieve(ana, mine, QUERY, 1)).toEqual([]); // the old vectors went with the old chunks

      await deleteContextFile(db, { userId: ana, trackerId: mine, fileId: file.id });
      const left = await db.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM "ContextChunk" WHERE "fileId" = ${file.id}`;
      expect(left[0]?.n).toBe(0);
    });

    it("an embedding failure keeps the upload: stored, full-text indexed, marked failed, retrieval by words", async () => {
      server.setRecordings([
        {
          name: "embeddings-down",
          match: { endpoint: "embeddings" },
          response: { status: 500, error: { message: "down" } },
        },
      ]);
      try {
        const { file } = await save(ana, myOther, "hours.md", "Opening hours on sunday are 10 to 4.");
        expect(file.size).toBeGreaterThan(0);
        expect(file).toMatchObject({ status: "indexed", embeddingStatus: "failed" });
        expect(file.embeddingError).toMatch(/Embedding failed/);
        expect(server.requests.some((r) => r.path === "/v1/embeddings" && r.matched === "embeddings-down")).toBe(true);
        expect(await db.contextChunk.count({ where: { fileId: file.id } })).toBe(1);
        const listed = (await listContextFiles(db, { userId: ana, trackerId: myOther, limits })).files;
        expect(listed.find((f) => f.id === file.id)).toMatchObject({ embeddingStatus: "failed" });
        // The query's embedding fails too: full text still answers.
        const found = await retrieve(ana, myOther, "sunday opening", 1);
        expect(found.map((c) => c.fileName)).toEqual(["hours.md"]);
      } finally {
        server.setRecordings([]);
      }
    });
  });
}
