import { describe, expect, it } from "vitest";
import { formatStructuredDocument } from "@/server/capabilities";
import {
  isRecommendationHeading,
  isVolatilePhrase,
  withoutVolatileParts,
} from "@/server/capabilities/web-scrape/volatile-lines";

/** Counters, relative times, ad lines and recommendation blocks stay out of the main text (docs/page-reading.md). */

describe("volatile parts of short lines", () => {
  it.each([
    ["1,234 people viewed this", ""],
    ["12 comments", ""],
    ["5.2k shares", ""],
    ["12 comments · 5.2k shares", ""],
    ["3 hours ago", ""],
    ["updated 5 min ago", ""],
    ["Updated 3 hours ago · 12 comments", ""],
    ["vor 2 Stunden aktualisiert", ""],
    ["Gestern, 18:40 Uhr", ""],
    ["2.345 Mal gelesen", ""],
    ["Publié il y a 3 heures", ""],
    ["1,2k partages", ""],
    ["Actualizado hace 5 horas", ""],
    ["3.456 lecturas", ""],
    ["Sponsored · Deal of the day: 30 % off rain jackets", ""],
    ["Advertisement", ""],
    ["Anzeige", ""],
    ["Werbung · Angebot des Tages", ""],
    ["Sponsorisé · Offre du jour", ""],
    ["Publicidad", ""],
    ["Promoted", ""],
    ["By Sam Reporter · Updated 3 hours ago · 12 comments", "By Sam Reporter"],
    ["By Sam Reporter, Local AffairsUpdated 3 hours ago12 comments", "By Sam Reporter, Local Affairs"],
  ])("%s → %j", (line, want) => {
    expect(withoutVolatileParts(line)).toBe(want);
  });

  it.each([
    "The council received 340 comments from residents.",
    "The fire started 3 hours ago, officials said.",
    "Klicken Sie hier",
    "Ads are everywhere now",
    "5 min read",
    "Published 3 March 2026",
    "Updated on 12 May 2026",
    "Price: $19.99",
    "Trail Runner 2",
    "Size | 42 | EU",
    "Home · News · 12 March",
  ])("kept: %s", (line) => {
    expect(withoutVolatileParts(line)).toBe(line);
  });

  it("long lines are body text, whatever they say", () => {
    const long =
      `Sponsored · ${"the meeting itself was sponsored by the harbour business association, ".repeat(2)}`.trim();
    expect(withoutVolatileParts(long)).toBe(long);
    expect(isVolatilePhrase("12 comments")).toBe(true);
    expect(isVolatilePhrase("Advertisement")).toBe(false); // the ad slot around it is recognised by its label
  });

  it.each([
    "You may also like",
    "Recommended for you",
    "Most read",
    "Related articles",
    "Meistgelesen",
    "À lire aussi",
    "Te puede interesar:",
  ])("recommendation heading: %s", (h) => expect(isRecommendationHeading(h)).toBe(true));
  it.each(["Read more", "Related work in the harbour", "Most people agree"])("not a recommendation heading: %s", (h) =>
    expect(isRecommendationHeading(h)).toBe(false),
  );
});

const doc = (main: string) =>
  formatStructuredDocument(
    `<!doctype html><html><body><main><article><h1>Story</h1>${main}</article></main></body></html>`,
    "https://n.example/a",
  );
const P1 = "<p>The river authority said on Thursday that work on the new flood barrier would start in the spring.</p>";
const P2 =
  "<p>Councillors from both main parties welcomed the new timetable but asked for monthly progress reports.</p>";

describe("the document's main text", () => {
  it("leaves out an ad slot, a recommendation block, a list after a recommendation heading and counter elements", () => {
    const base = doc(
      `<div class="byline"><span>By Sam</span> <time>3 hours ago</time> <a href="#c">12 comments</a></div>${P1}${P2}`,
    );
    const noisy = doc(
      `<div class="byline"><span>By Sam</span> <time>yesterday</time> <a href="#c">15 comments</a> <span>1,234 people viewed this</span></div>${P1}
<div class="ad"><span>Advertisement</span><p>Switch your energy supplier in five minutes and save.</p></div>${P2}
<section><h2>You may also like</h2><ul><li><a href="/1">Harbour market to reopen after refit</a></li><li><a href="/2">Storm warning for the coast</a></li></ul></section>
<h3>Related articles</h3><ul><li><a href="/3">Ferry timetable changes for the winter season</a></li></ul>`,
    );
    expect(noisy.mainText).toBe(base.mainText);
    expect(noisy.headings).toEqual(base.headings);
    expect(base.mainText.split("\n")).toEqual(["Story", "By Sam", P1.slice(3, -4), P2.slice(3, -4)]);
  });

  it("keeps a body that merely starts near a recommendation heading, and long paragraphs under it", () => {
    const body = `<h2>Related articles</h2><div><p>${"A long paragraph of the article's own body text that continues the story in detail. ".repeat(3)}</p></div>`;
    expect(doc(body).mainText).toContain("A long paragraph of the article's own body text");
    const adLike = `<div><span>Advertisement</span>${"<p>This paragraph is much longer than any ad copy would be, and it is part of the article body.</p>".repeat(5)}</div>`;
    expect(doc(adLike).mainText).toContain("part of the article body");
  });
});
