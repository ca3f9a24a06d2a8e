import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleContextUploadRequest } from "@/server/api/context-upload-route";
import {
  deleteContextFile,
  listContextFiles,
  retrieveContextChunks,
  saveContextFile,
  type TContextLimits,
} from "@/server/context";
import { isAppError } from "@/server/errors";
import { makeDocx, makePdf, makeTextlessPdf, utf8 } from "../helpers/context-fixtures";
import { createTestDb, type TTestDb } from "../helpers/db";
import { createActiveTracker } from "../helpers/trackers";

/** Context files (docs/context-files.md): files are stored, extracted by the real parsers, chunked and full-text indexed — on PGlite. */

const limits: TContextLimits = {
  maxBytes: 200_000,
  maxFiles: 5,
  kinds: ["text", "markdown", "csv", "pdf", "docx"],
  maxTextChars: 100_000,
};
const definition = {
  fields: [{ name: "price", type: "number", description: "Price" }],
  identityRule: { kind: "canonical_url" },
  materiality: {},
};

let t: TTestDb;
let userId: string;
let otherUserId: string;
let trackerId: string;
let secondTrackerId: string;
let otherUsersTrackerId: string;

beforeAll(async () => {
  t = await createTestDb();
  userId = (await t.db.user.create({ data: { name: "Ana", email: "ana@example.test" } })).id;
  otherUserId = (await t.db.user.create({ data: { name: "Bo", email: "bo@example.test" } })).id;
  const make = async (owner: string, url: string) =>
    (await createActiveTracker(t.db, { userId: owner, capability: "web.scrape", capabilityInput: { url }, definition }))
      .tracker.id;
  trackerId = await make(userId, "https://rival.example/pricing");
  secondTrackerId = await make(userId, "https://other.example/pricing");
  otherUsersTrackerId = await make(otherUserId, "https://rival.example/pricing");
});
afterAll(async () => {
  await t?.close();
});

const save = (input: { name: string; bytes: Uint8Array; tracker?: string; user?: string; replaceFileId?: string }) =>
  saveContextFile(t.db, {
    userId: input.user ?? userId,
    trackerId: input.tracker ?? trackerId,
    name: input.name,
    mediaType: "application/octet-stream",
    bytes: input.bytes,
    replaceFileId: input.replaceFileId ?? null,
    limits,
  });

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a failure");
}

async function stored() {
  return {
    files: await t.db.contextFile.count({ where: { trackerId } }),
    chunks: await t.db.contextChunk.count({ where: { trackerId } }),
  };
}

describe("the full-text index on PGlite", () => {
  it("computes the generated tsvector column and keeps a GIN index on it", async () => {
    const { file } = await save({ name: "note.txt", bytes: utf8("Our price is 10.00 per seat.") });
    const rows = await t.db.$queryRaw<{ vector: string }[]>`
      SELECT "searchVector"::text AS vector FROM "ContextChunk" WHERE "fileId" = ${file.id}`;
    expect(rows[0]?.vector).toContain("'price'");
    const indexes = await t.db.$queryRaw<{ def: string }[]>`
      SELECT indexdef AS def FROM pg_indexes WHERE tablename = 'ContextChunk' AND indexdef ILIKE '%gin%'`;
    expect(indexes[0]?.def).toContain('"searchVector"');
    await deleteContextFile(t.db, { userId, trackerId, fileId: file.id });
  });
});

describe("attaching files", () => {
  it("reads text, Markdown, CSV, PDF and DOCX with the real parsers and indexes their chunks", async () => {
    const pdf = await makePdf([["Price list 2026"], ["Pro plan: our price is 10.00 USD"]]);
    const docx = await makeDocx(["Strategy note", "We never match discounts below 8.00."]);
    const uploads = [
      { name: "notes.md", bytes: utf8("# Notes\n\nThe rival's onboarding is slow.\n") },
      { name: "prices.csv", bytes: utf8("plan,price,seats\nPro,10.00,5\nTeam,25.00,20\n") },
      { name: "price-list.pdf", bytes: pdf },
      { name: "strategy.docx", bytes: docx },
    ];
    for (const upload of uploads) {
      const { file } = await save(upload);
      expect(file).toMatchObject({ name: upload.name, status: "indexed", size: upload.bytes.byteLength });
      expect(file.chunkCount).toBeGreaterThan(0);
    }
    const chunks = await t.db.contextChunk.findMany({
      where: { trackerId },
      include: { file: { select: { name: true } } },
      orderBy: [{ file: { name: "asc" } }, { ordinal: "asc" }],
    });
    const byFile = (name: string) => chunks.filter((c) => c.file.name === name);
    // PDF: one chunk per page here, located by page.
    expect(byFile("price-list.pdf").map((c) => [c.page, c.location])).toEqual([
      [1, "p. 1"],
      [2, "p. 2"],
    ]);
    expect(byFile("price-list.pdf")[1]?.text).toContain("our price is 10.00");
    expect(byFile("strategy.docx")[0]?.text).toContain("never match discounts below 8.00");
    // CSV rows carry their column names, so search and the judge see what a cell means.
    expect(byFile("prices.csv")[0]?.text).toContain("Pro — price: 10.00 — seats: 5");
    expect(byFile("prices.csv")[0]?.location).toBe("rows 2–3");

    const list = await listContextFiles(t.db, { userId, trackerId, limits });
    expect(list.files.map((f) => [f.name, f.kind]).sort()).toEqual([
      ["notes.md", "markdown"],
      ["price-list.pdf", "pdf"],
      ["prices.csv", "csv"],
      ["strategy.docx", "docx"],
    ]);
    expect(list.files.find((f) => f.name === "price-list.pdf")?.units).toBe(2);
  });

  it("chunks long text with overlap", async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `Line ${i + 1}: the competitor changed item ${i + 1}.`);
    const { file } = await save({ name: "long.txt", bytes: utf8(lines.join("\n")) });
    const chunks = await t.db.contextChunk.findMany({ where: { fileId: file.id }, orderBy: { ordinal: "asc" } });
    expect(chunks.length).toBeGreaterThan(2);
    for (let i = 1; i < chunks.length; i++) {
      // Each chunk starts with text the one before it ends with.
      const head = (chunks[i]?.text ?? "").slice(0, 30);
      expect(chunks[i - 1]?.text).toContain(head);
    }
    expect(chunks[0]?.location).toMatch(/^lines 1–\d+$/);
    await deleteContextFile(t.db, { userId, trackerId, fileId: file.id });
  });
});

describe("upload errors: a clear message and nothing half-stored", () => {
  it.each([
    [
      "an oversized file",
      "big.txt",
      () => utf8("x".repeat(limits.maxBytes + 1)),
      "PAYLOAD_TOO_LARGE",
      /at most 200 KB/,
    ],
    ["an unsupported type", "photo.png", () => utf8("\u0089PNG..."), "UNPROCESSABLE", /not a supported file type/],
    ["a PDF without text", "scan.pdf", makeTextlessPdf, "UNPROCESSABLE", /no text layer/],
    [
      "a corrupt DOCX",
      "broken.docx",
      () => utf8("PK\u0003\u0004 this is not a zip archive"),
      "UNPROCESSABLE",
      /could not be read as a Word document/,
    ],
    ["a file that only claims to be a PDF", "fake.pdf", () => utf8("hello"), "UNPROCESSABLE", /is not a PDF/],
  ] as const)("refuses %s", async (_label, name, bytes, code, message) => {
    const before = await stored();
    const error = await failure(save({ name, bytes: await bytes() }));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(name);
    expect(await stored()).toEqual(before);
  });

  it("refuses a second file of the same name, and more files than the limit", async () => {
    const before = await stored();
    expect((await failure(save({ name: "notes.md", bytes: utf8("again") }))).message).toMatch(/already attached/);
    expect(await stored()).toEqual(before);
    const extra = await save({ name: "extra.txt", bytes: utf8("fifth file") });
    const tooMany = await failure(save({ name: "sixth.txt", bytes: utf8("sixth file") }));
    expect(tooMany).toMatchObject({ code: "CONFLICT" });
    expect(tooMany.message).toMatch(/already has 5 files/);
    await deleteContextFile(t.db, { userId, trackerId, fileId: extra.file.id });
  });

  it("a failed replace leaves the old file and its chunks as they were", async () => {
    const original = (await listContextFiles(t.db, { userId, trackerId, limits })).files.find(
      (f) => f.name === "strategy.docx",
    );
    const chunksBefore = await t.db.contextChunk.findMany({ where: { fileId: original?.id }, select: { text: true } });
    const error = await failure(
      save({ name: "strategy.docx", bytes: utf8("PK\u0003\u0004 broken"), replaceFileId: original?.id }),
    );
    expect(error.code).toBe("UNPROCESSABLE");
    expect(await t.db.contextChunk.findMany({ where: { fileId: original?.id }, select: { text: true } })).toEqual(
      chunksBefore,
    );
  });
});

describe("replace and delete", () => {
  it("replacing re-indexes the file under the same id; deleting removes its chunks", async () => {
    const { file } = await save({ name: "memo.txt", bytes: utf8("Our margin target is 40 percent.") });
    const replaced = await save({
      name: "memo.txt",
      bytes: utf8("Our margin target is 55 percent."),
      replaceFileId: file.id,
    });
    expect(replaced).toMatchObject({ replaced: true, file: { id: file.id } });
    const texts = (await t.db.contextChunk.findMany({ where: { fileId: file.id } })).map((c) => c.text);
    expect(texts).toEqual(["Our margin target is 55 percent."]);
    const found = await retrieveContextChunks(t.db, { userId, trackerId, query: "margin target", limit: 3 });
    expect(found.map((c) => c.text)).toEqual(["Our margin target is 55 percent."]);

    await deleteContextFile(t.db, { userId, trackerId, fileId: file.id });
    expect(await t.db.contextChunk.count({ where: { fileId: file.id } })).toBe(0);
    expect(await retrieveContextChunks(t.db, { userId, trackerId, query: "margin target", limit: 3 })).toEqual([]);
    expect((await failure(deleteContextFile(t.db, { userId, trackerId, fileId: file.id }))).code).toBe("NOT_FOUND");
  });
});

describe("retrieval is scoped to one tracker of one person", () => {
  it("never returns another tracker's or another person's files", async () => {
    await save({
      name: "rival.txt",
      bytes: utf8("Secret: the rival undercut pricing plan."),
      tracker: secondTrackerId,
    });
    await save({
      name: "rival.txt",
      bytes: utf8("Bo's note: the rival undercut pricing plan."),
      tracker: otherUsersTrackerId,
      user: otherUserId,
    });
    const mine = await retrieveContextChunks(t.db, { userId, trackerId, query: "rival undercut pricing", limit: 10 });
    expect(mine.map((c) => c.fileName)).not.toContain("rival.txt");
    expect(mine.some((c) => c.text.includes("Secret") || c.text.includes("Bo's"))).toBe(false);
    const second = await retrieveContextChunks(t.db, {
      userId,
      trackerId: secondTrackerId,
      query: "rival undercut pricing",
      limit: 10,
    });
    expect(second.map((c) => c.text)).toEqual(["Secret: the rival undercut pricing plan."]);
    // Bo's tracker id with Ana's user id: nothing, even though the tracker has a matching file.
    expect(
      await retrieveContextChunks(t.db, { userId, trackerId: otherUsersTrackerId, query: "rival undercut", limit: 10 }),
    ).toEqual([]);
  });

  it("another person's tracker reads as not found for list, upload and delete", async () => {
    expect((await failure(listContextFiles(t.db, { userId, trackerId: otherUsersTrackerId, limits }))).code).toBe(
      "NOT_FOUND",
    );
    expect((await failure(save({ name: "x.txt", bytes: utf8("x"), tracker: otherUsersTrackerId }))).code).toBe(
      "NOT_FOUND",
    );
    const theirs = await t.db.contextFile.findFirstOrThrow({ where: { userId: otherUserId } });
    expect(
      (await failure(deleteContextFile(t.db, { userId, trackerId: otherUsersTrackerId, fileId: theirs.id }))).code,
    ).toBe("NOT_FOUND");
    expect(await t.db.contextFile.count({ where: { id: theirs.id } })).toBe(1);
  });
});

describe("the upload route", () => {
  it("needs a session and answers errors with the shared error shape", async () => {
    const form = new FormData();
    form.set("file", new File([utf8("hello")], "hello.txt", { type: "text/plain" }));
    const response = await handleContextUploadRequest(
      new Request("http://app/api/trackers/x/context-files", { method: "POST", body: form }),
      trackerId,
      { db: t.db, limits },
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: "UNAUTHORIZED" } });
  });
});
