/**
 * JSON-LD as pages really serve it: `//` and `/* *\/` comments, trailing commas, an HTML-comment or
 * CDATA wrapper, raw newlines and other control characters inside strings. Strict JSON.parse first;
 * on failure one linear repair pass (outside strings: drop comments and trailing commas; inside
 * strings: escape control characters), then JSON.parse again. Returns undefined when even the
 * repaired text is not JSON — a page's malformed block is skipped, never fatal.
 */

const WRAPPER_START = /^\s*(?:<!--|(?:\/\/\s*)?<!\[CDATA\[)/;
const WRAPPER_END = /(?:-->|(?:\/\/\s*)?\]\]>)\s*$/;

export function parseLenientJson(raw: string): unknown {
  const text = raw.replace(WRAPPER_START, "").replace(WRAPPER_END, "");
  try {
    return JSON.parse(text);
  } catch {
    // fall through to the repair pass
  }
  try {
    return JSON.parse(repairJson(text));
  } catch {
    return undefined;
  }
}

const CONTROL_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** One pass; every character is looked at a bounded number of times. Exported for tests. */
export function repairJson(text: string): string {
  const out: string[] = [];
  /** Index in `out` of a comma that is dropped if the next token closes an object or array. */
  let pendingComma = -1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i] as string;
    if (c === '"') {
      // A string: copy to its closing quote, escaping raw control characters.
      pendingComma = -1;
      let j = i + 1;
      let buf = '"';
      while (j < n) {
        const d = text[j] as string;
        if (d === "\\") {
          buf += d + (text[j + 1] ?? "");
          j += 2;
          continue;
        }
        if (d === '"') break;
        const code = d.charCodeAt(0);
        buf += code < 0x20 ? (CONTROL_ESCAPES[d] ?? `\\u${code.toString(16).padStart(4, "0")}`) : d;
        j++;
      }
      out.push(`${buf}"`);
      i = j + 1;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i + 2);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (c === "}" || c === "]") {
      if (pendingComma >= 0) out[pendingComma] = "";
      pendingComma = -1;
      out.push(c);
      i++;
      continue;
    }
    if (c === ",") {
      pendingComma = out.length;
      out.push(c);
      i++;
      continue;
    }
    if (c !== " " && c !== "\n" && c !== "\r" && c !== "\t") pendingComma = -1;
    out.push(c);
    i++;
  }
  return out.join("");
}
