import { afterAll, describe, expect, it } from "vitest";
import { closePageWorkers, DEFAULT_PAGE_LIMITS, encodeJsonOffThread, readPageInWorker } from "@/server/capabilities";
import { decodeJson, encodeJson, encodeJsonSync } from "@/server/lib/encode-json";
import { encodeCapture } from "@/server/timeline/captures/encode-capture";

afterAll(() => closePageWorkers());

/** A capture-like payload: a page's HTML and document, non-ASCII text included. */
const payload = {
  raw: {
    json: { title: "Acme — Pro", mainText: `Now €1.299,00 😀 ${"lorem ipsum ".repeat(2000)}`, headings: ["Pro"] },
    html: `<html><body><p>${"<b>x</b> ".repeat(3000)}</p></body></html>`,
    css: { "css:0:text": { ok: true, values: ["€1.299,00"] } },
  },
  entityKey: "https://shop.example/p",
  source: "web page https://shop.example/p",
  textIsMainText: true,
};

describe("encoding a capture off the server's thread", () => {
  it("the page worker, libuv's thread pool and this thread make the same bytes and hash, and they decode back", async () => {
    // Started by a page read, as a refresh starts it.
    await readPageInWorker(
      {
        kind: "text",
        body: "hello",
        finalUrl: "about:blank",
        requestedUrl: "about:blank",
        contentType: "text/plain",
        css: [],
      },
      DEFAULT_PAGE_LIMITS,
    );
    const inWorker = await encodeJsonOffThread(payload, "a test payload");
    const pooled = await encodeJson(payload);
    const here = encodeJsonSync(payload);
    expect(Buffer.from(inWorker.data).equals(Buffer.from(here.data))).toBe(true);
    expect(Buffer.from(pooled.data).equals(Buffer.from(here.data))).toBe(true);
    expect(inWorker.hash).toBe(here.hash);
    expect(inWorker.rawBytes).toBe(Buffer.byteLength(JSON.stringify(payload)));
    expect(inWorker.data.byteLength).toBeLessThan(inWorker.rawBytes / 5);
    expect(await decodeJson(inWorker.data)).toEqual(payload);
  });

  it("a capture's id is per entity and content, and its bytes are a Buffer ready to store", async () => {
    const a = await encodeCapture({ trackerId: "t1", entityId: "e1", payload });
    const again = await encodeCapture({ trackerId: "t1", entityId: "e1", payload });
    const otherEntity = await encodeCapture({ trackerId: "t1", entityId: "e2", payload });
    const otherContent = await encodeCapture({ trackerId: "t1", entityId: "e1", payload: { ...payload, source: "x" } });
    expect(a.id).toBe(again.id);
    expect(new Set([a.id, otherEntity.id, otherContent.id]).size).toBe(3);
    expect(Buffer.isBuffer(a.data)).toBe(true);
    expect(a.storedBytes).toBe(a.data.byteLength);
    expect(await decodeJson(Buffer.from(a.data.toString("base64"), "base64"))).toEqual(payload);
  });

  it("without a running pool the same bytes are made on this thread", async () => {
    await closePageWorkers();
    const direct = await encodeJsonOffThread(payload, "a test payload");
    expect(Buffer.from(direct.data).equals(Buffer.from(encodeJsonSync(payload).data))).toBe(true);
  });
});
