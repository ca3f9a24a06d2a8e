import { describe, expect, it } from "vitest";
import { collapseWhitespace } from "@/server/lib/collapse-whitespace";

/** The definition it must equal (server/lib/collapse-whitespace.ts). */
const reference = (s: string) => s.replace(/\s+/g, " ").trim();

// Every character JavaScript's \s matches, the separators around it, and ordinary text.
const WHITESPACE = [
  " ",
  "\t",
  "\n",
  "\v",
  "\f",
  "\r",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2005",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
];
const OTHER = ["a", "Z", "9", "€", "\u0000", "\u200b", "·", "é", "\ud83d\ude00"];

/** A deterministic generator (xorshift), so a failure names a reproducible case. */
function* randomStrings(count: number, seed: number): Generator<string> {
  let x = seed;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
  for (let i = 0; i < count; i++) {
    const length = Math.floor(next() * 40);
    let s = "";
    for (let j = 0; j < length; j++) {
      const pool = next() < 0.5 ? WHITESPACE : OTHER;
      s += pool[Math.floor(next() * pool.length)];
    }
    yield s;
  }
}

describe("collapseWhitespace", () => {
  it('equals s.replace(/\\s+/g, " ").trim() on 20,000 strings dense in every kind of whitespace', () => {
    let checked = 0;
    for (const s of randomStrings(20_000, 0x2f6e2b1)) {
      expect(collapseWhitespace(s), JSON.stringify(s)).toBe(reference(s));
      checked++;
    }
    expect(checked).toBe(20_000);
  });

  it("keeps single spaces, folds every other run, and trims", () => {
    expect(collapseWhitespace("  Pro \t plan\u00a0\u00a0$10 \n")).toBe("Pro plan $10");
    expect(collapseWhitespace("one two three")).toBe("one two three");
    expect(collapseWhitespace("a\u3000b")).toBe("a b");
    expect(collapseWhitespace(" \n\t ")).toBe("");
    // The same answer on a second call: the shared global pattern keeps no state between calls.
    expect(collapseWhitespace("x  y")).toBe("x y");
    expect(collapseWhitespace("x  y")).toBe("x y");
  });
});
