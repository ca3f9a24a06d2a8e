import { describe, expect, it } from "vitest";
import { listHref, listInput, readListParams } from "@/components/trackers/tracker-filters";
import { ZTrackersListRequestSchema } from "@/contracts/trackers";

/** The trackers page's address ↔ its query (docs/trackers.md, "Paging, search and filters"): read the same on both sides. */
describe("the trackers list's address", () => {
  const read = (query: string) => {
    const params = new URLSearchParams(query);
    return readListParams((name) => params.get(name));
  };

  it("reads show, q and after, and falls back to the defaults for anything else", () => {
    expect(read("show=failing&q=%20acme%20&after=abc")).toEqual({ show: "failing", q: "acme", after: "abc" });
    expect(read("")).toEqual({ show: "current", q: "", after: null });
    expect(read(`show=bogus&after=${"x".repeat(201)}`)).toEqual({ show: "current", q: "", after: null });
    expect(read(`q=${"a".repeat(300)}`).q).toHaveLength(200);
  });

  it("writes the defaults out of the address, and round-trips a view", () => {
    expect(listHref({ show: "current", q: "" })).toBe("/trackers");
    const href = listHref({ show: "needs_attention", q: "a&b c", after: "cur" });
    expect(href).toBe("/trackers?show=needs_attention&q=a%26b+c&after=cur");
    expect(read(href.split("?")[1] ?? "")).toEqual({ show: "needs_attention", q: "a&b c", after: "cur" });
  });

  it("the query it makes is what the contract accepts, with the page size", () => {
    expect(ZTrackersListRequestSchema.parse(listInput(read("show=paused&q=x")))).toEqual({
      show: "paused",
      q: "x",
      limit: 50,
    });
    expect(listInput(read(""))).toEqual({ show: "current", limit: 50 });
  });
});
