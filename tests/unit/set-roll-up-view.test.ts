import { describe, expect, it } from "vitest";
import type { TValueFormat } from "@/contracts/definition/format-value";
import { buildSpec, validateFeedSpec } from "@/contracts/feed-catalog";
import { setCardRows } from "@/server/feed/sources/set-roll-up-card";
import { trackerCardItem } from "@/server/feed/sources/trackers-source";
import { renderChanges, toNoticeChange } from "@/server/notifications/render-message";
import {
  isRollUpDelta,
  MEMBERS_SHOWN,
  setRollUpView,
  type TRollUpMember,
  type TSetRollUpInput,
} from "@/server/timeline/set-roll-up-view";

/**
 * A set's roll-up as people read it (docs/sets.md, docs/feed.md, docs/notifications.md): one headline with counts and
 * the most important member changes, a bounded list of members linking to their pages, "+N more" to the members list;
 * the same view for the card and the message.
 */

const formats = new Map<string, TValueFormat>([
  ["name", { type: "string" }],
  ["price", { type: "money", currency: "USD" }],
]);

const money = (amount: number) => ({ amount, currency: "USD" });
const listed = { presence: { from: "gone", to: "listed" } };

const member = (m: Partial<TRollUpMember> & Pick<TRollUpMember, "key" | "kind">): TRollUpMember => ({
  materiality: "notable",
  delta: {},
  decisions: {},
  fields: null,
  ...m,
});

/** Two new products, one gone, one changed materially (price up 7.1 %), one changed notably (rename). */
const MEMBERS: TRollUpMember[] = [
  member({
    key: "https://shop.example/p/oat",
    kind: "new",
    delta: { ...listed, name: { from: null, to: "Oat Roast" }, price: { from: null, to: money(12) } },
  }),
  member({
    key: "https://shop.example/p/rye",
    kind: "new",
    delta: { ...listed, name: { from: null, to: "Rye Roast" }, price: { from: null, to: money(9.5) } },
  }),
  member({
    key: "sku-17",
    kind: "changed",
    materiality: "notable",
    delta: { name: { from: "Dark Roast", to: "Darker Roast" } },
    fields: { name: "Darker Roast", price: money(8) },
  }),
  member({
    key: "blend & co/1",
    kind: "changed",
    materiality: "material",
    delta: { price: { from: money(4.2), to: money(4.5) } },
    decisions: { price: { verdict: "material", decidedBy: "code", reason: "moved 7.1 %" } },
    fields: { name: "Blend & Co", price: money(4.5) },
  }),
  member({
    key: "https://shop.example/p/kenya",
    kind: "gone",
    delta: { presence: { from: "listed", to: "gone" } },
    fields: { name: "Kenya Nyeri AA", price: money(14) },
  }),
];

const ROLL_UP = {
  delta: {
    members: { from: 7, to: 8 },
    appeared: { from: null, to: ["Oat Roast", "Rye Roast"] },
    changed: { from: null, to: ["Darker Roast", "Blend & Co"] },
    disappeared: { from: ["Kenya Nyeri AA"], to: null },
  },
  decisions: {
    members: { verdict: "notable" as const, decidedBy: "code" as const, reason: "members listed" },
    appeared: { verdict: "material" as const, decidedBy: "code" as const, reason: "2 new items: Oat Roast, Rye Roast" },
    changed: { verdict: "material" as const, decidedBy: "code" as const, reason: "Blend & Co price …" },
    disappeared: { verdict: "notable" as const, decidedBy: "code" as const, reason: "not listed for 2 reads in a row" },
  },
};

const input = (over: Partial<TSetRollUpInput> = {}): TSetRollUpInput => ({
  trackerId: "trk1",
  ...ROLL_UP,
  members: MEMBERS,
  formats,
  noun: { one: "product", many: "products" },
  ...over,
});

describe("setRollUpView", () => {
  it("says the counts in plain words with the noun, then the most important member changes", () => {
    const view = setRollUpView(input());
    expect(view.headline).toBe(
      "2 new products, 1 gone, 2 changed; Blend & Co: price $4.20 → $4.50 (+7.1%); Darker Roast: name was “Dark Roast”",
    );
    expect(view.counts).toEqual({ new: 2, back: 0, changed: 2, gone: 1 });
  });

  it("lists new, changed (material first) and gone members, each linking to its member page", () => {
    const view = setRollUpView(input());
    expect(view.members).toEqual([
      {
        kind: "new",
        name: "Oat Roast",
        href: "/trackers/trk1/members/https%3A%2F%2Fshop.example%2Fp%2Foat",
        detail: "price $12.00",
        material: false,
      },
      {
        kind: "new",
        name: "Rye Roast",
        href: "/trackers/trk1/members/https%3A%2F%2Fshop.example%2Fp%2Frye",
        detail: "price $9.50",
        material: false,
      },
      {
        kind: "changed",
        name: "Blend & Co",
        href: "/trackers/trk1/members/blend%20%26%20co%2F1",
        detail: "price $4.20 → $4.50 (+7.1%)",
        material: true,
      },
      {
        kind: "changed",
        name: "Darker Roast",
        href: "/trackers/trk1/members/sku-17",
        detail: "name was “Dark Roast”",
        material: false,
      },
      {
        kind: "gone",
        name: "Kenya Nyeri AA",
        href: "/trackers/trk1/members/https%3A%2F%2Fshop.example%2Fp%2Fkenya",
        detail: null,
        material: false,
      },
    ]);
    expect(view.more).toBe(0);
    expect(view.membersHref).toBe("/trackers/trk1#members");
  });

  it("lists at most the bound and counts the rest as +N more (exact counts beyond the members read)", () => {
    expect(MEMBERS_SHOWN).toBe(5);
    const three = setRollUpView(input({ limit: 3 }));
    expect(three.members.map((m) => m.name)).toEqual(["Oat Roast", "Rye Roast", "Blend & Co"]);
    expect(three.more).toBe(2);
    // The loader reads a bounded part of a big run: the counts it gives are the headline's and the "+N more"'s.
    const big = setRollUpView(input({ counts: { new: 40, back: 1, changed: 12, gone: 3 } }));
    expect(big.headline).toMatch(/^40 new products, 1 back, 3 gone, 12 changed; Blend & Co: price/);
    expect(big.members).toHaveLength(5);
    expect(big.more).toBe(56 - 5);
  });

  it("says items without a noun, names the first count by it whatever its kind, and only the count when nothing else moved", () => {
    const gone = setRollUpView(input({ noun: null, members: [MEMBERS[4] as TRollUpMember] }));
    expect(gone.headline).toBe("1 item gone");
    const onlyCount = setRollUpView(input({ noun: null, members: [], delta: { members: { from: 6, to: 5 } } }));
    expect(onlyCount.headline).toBe("Items listed: 6 → 5");
    expect(onlyCount.members).toEqual([]);
  });

  it("without the members' entries, reads the names off the roll-up and links them to the members list", () => {
    const view = setRollUpView(input({ members: null }));
    expect(view.headline).toBe("2 new products, 1 gone, 2 changed");
    expect(view.members.map((m) => [m.kind, m.name, m.href])).toEqual([
      ["new", "Oat Roast", "/trackers/trk1#members"],
      ["new", "Rye Roast", "/trackers/trk1#members"],
      ["changed", "Darker Roast", "/trackers/trk1#members"],
      ["changed", "Blend & Co", "/trackers/trk1#members"],
      ["gone", "Kenya Nyeri AA", "/trackers/trk1#members"],
    ]);
  });

  it("knows a roll-up's lines from any other entry's", () => {
    expect(isRollUpDelta(ROLL_UP.delta)).toBe(true);
    expect(isRollUpDelta({ price: { from: 1, to: 2 } })).toBe(false);
    expect(isRollUpDelta({})).toBe(false);
  });
});

describe("the card and the message read the same view", () => {
  it("a set card: the headline and a MemberList that passes the catalog check; a bad member link fails it", () => {
    const view = setRollUpView(input({ limit: 3 }));
    const rows = setCardRows(view, "Did the rival add products?");
    expect(rows[0]).toMatchObject({ type: "Text", props: { text: view.headline } });
    expect(rows[1]).toMatchObject({
      type: "MemberList",
      props: {
        more: 2,
        moreHref: "/trackers/trk1#members",
        label: "Products in the latest change of “Did the rival add products?”",
      },
    });
    const spec = buildSpec("Stack", {}, rows);
    expect(validateFeedSpec(spec)).toMatchObject({ ok: true });
    const list = spec.elements.members as unknown as { props: { items: { href: string }[] } };
    (list.props.items[0] as { href: string }).href = "javascript:alert(1)";
    expect(validateFeedSpec(spec)).toMatchObject({ ok: false, problem: expect.stringMatching(/MemberList/) });
  });

  it("a set tracker's card shows the roll-up, not its raw lines, and folds earlier roll-ups by their headline", () => {
    const at = (m: number) => new Date(Date.UTC(2026, 10, 29, 12, m));
    const card = trackerCardItem(
      {
        tracker: { id: "trk1", decision: "Did the rival add products?" },
        formats,
        total: 2,
        definitionVersion: 1,
        changes: [
          { id: "c2", runId: "r2", capturedAt: at(5), materiality: "material", ...ROLL_UP },
          {
            id: "c1",
            runId: "r1",
            capturedAt: at(0),
            materiality: "material",
            delta: { appeared: { from: null, to: ["Mocha"] }, members: { from: 6, to: 7 } },
            decisions: {},
          },
        ],
        set: {
          noun: { one: "product", many: "products" },
          latest: { members: MEMBERS, counts: { new: 2, back: 0, changed: 2, gone: 1 } },
        },
      },
      null,
    );
    const text = JSON.stringify(card?.ui);
    expect(text).toContain("2 new products, 1 gone, 2 changed; Blend & Co: price $4.20 → $4.50 (+7.1%)");
    expect(text).toContain("/trackers/trk1/members/blend%20%26%20co%2F1");
    expect(text).not.toMatch(/"field":"Appeared"|"field":"Changed"|"field":"Disappeared"/);
    expect(text).toContain("1 new product");
    expect(text).toContain("Products, last 3 values");
    expect(card?.data.set).toMatchObject({ headline: expect.stringMatching(/^2 new products/), more: 0 });
    expect(card?.data.changes).toBeUndefined();
    expect(validateFeedSpec(card?.ui)).toMatchObject({ ok: true });
  });

  it("a notice titles the change by the headline and lists the members with absolute links, not the raw lines", () => {
    const notice = toNoticeChange(
      {
        id: "c2",
        trackerId: "trk1",
        materiality: "material",
        capturedAt: new Date("2026-11-29T12:05:00Z"),
        ...ROLL_UP,
      },
      { decision: "Did the rival add products?" },
      {
        formats,
        appUrl: "https://bell.example.com/",
        insight: null,
        set: setRollUpView(input({ limit: 3 })),
      },
    );
    const message = renderChanges([notice], { grouped: false });
    expect(message.subject).toBe(
      "Material change: Did the rival add products? — 2 new products, 1 gone, 2 changed; Blend & Co: price $4.20 → $4.50 (+7.1%); Darker Roast: name was “Dark Roast”",
    );
    expect(message.text).toBe(
      [
        "Did the rival add products? — material change",
        "  2 new products, 1 gone, 2 changed; Blend & Co: price $4.20 → $4.50 (+7.1%); Darker Roast: name was “Dark Roast”",
        "  New: Oat Roast — price $12.00 https://bell.example.com/trackers/trk1/members/https%3A%2F%2Fshop.example%2Fp%2Foat",
        "  New: Rye Roast — price $9.50 https://bell.example.com/trackers/trk1/members/https%3A%2F%2Fshop.example%2Fp%2Frye",
        "  Changed: Blend & Co — price $4.20 → $4.50 (+7.1%) https://bell.example.com/trackers/trk1/members/blend%20%26%20co%2F1",
        "  +2 more https://bell.example.com/trackers/trk1#members",
        "  https://bell.example.com/trackers/trk1#change-c2",
        "",
      ].join("\n"),
    );
    expect(message.text).not.toMatch(/Appeared|Disappeared/);
    expect(message.html).toContain(
      '<a href="https://bell.example.com/trackers/trk1/members/blend%20%26%20co%2F1">Blend &amp; Co</a>',
    );
  });
});
