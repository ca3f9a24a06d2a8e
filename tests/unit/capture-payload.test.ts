import { describe, expect, it } from "vitest";
import { storedCapturePayload, ZCapturePayloadSchema } from "@/server/intelligence/replay/replay-basis";

/** A capture stores a page's text once (issue "Refresh at the floor": the changed path's encoding cost). */
const page = {
  raw: { json: { title: "Beans", mainText: "House espresso\n$12.00" }, html: "<main>…</main>", text: "" },
  entityKey: "https://shop.test/beans",
  source: "web page https://shop.test/beans",
};

describe("capture payload", () => {
  it("leaves out raw.text when it is the document's mainText, and reads it back", () => {
    const payload = { ...page, raw: { ...page.raw, text: page.raw.json.mainText } };
    const stored = storedCapturePayload(payload);
    expect(stored.raw.text).toBeUndefined();
    expect(JSON.stringify(stored).split("House espresso").length - 1).toBe(1);
    expect(ZCapturePayloadSchema.parse(JSON.parse(JSON.stringify(stored)))).toEqual(payload);
  });

  it("keeps a text that differs from mainText, and one with no document text", () => {
    const other = { ...page, raw: { ...page.raw, text: "something else" } };
    expect(storedCapturePayload(other)).toEqual(other);
    expect(ZCapturePayloadSchema.parse(storedCapturePayload(other))).toEqual(other);
    const place = { raw: { json: { placeId: "p1", rating: 4.5 } }, entityKey: "p1", source: "Google Maps place p1" };
    expect(storedCapturePayload(place)).toEqual(place);
    expect(ZCapturePayloadSchema.parse(place)).toEqual(place);
  });

  it("parses captures stored before (raw.text written out) unchanged", () => {
    const older = { ...page, raw: { ...page.raw, text: page.raw.json.mainText } };
    expect(ZCapturePayloadSchema.parse(older)).toEqual(older);
  });
});
