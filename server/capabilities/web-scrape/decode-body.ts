import zlib from "node:zlib";

/** Content-Type parsing, charset detection (header, BOM, <meta charset>) and decompression. */

export function parseContentType(header: string | undefined): { mime: string; charset?: string } {
  if (!header) return { mime: "" };
  const [mime = "", ...params] = header.split(";");
  let charset: string | undefined;
  for (const p of params) {
    const [k, v] = p.split("=");
    if (k?.trim().toLowerCase() === "charset" && v)
      charset = v
        .trim()
        .replace(/^["']|["']$/g, "")
        .toLowerCase();
  }
  return { mime: mime.trim().toLowerCase(), charset };
}

/** BOM, then <meta charset> in the first KiB (HTML only), then UTF-8. */
export function sniffCharset(body: Buffer, mime: string, declared?: string): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return "utf-8";
  if (body[0] === 0xfe && body[1] === 0xff) return "utf-16be";
  if (body[0] === 0xff && body[1] === 0xfe) return "utf-16le";
  if (declared) return declared;
  if (mime === "" || mime.includes("html")) {
    const head = body.subarray(0, 1024).toString("latin1");
    const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head);
    if (m?.[1]) return m[1].toLowerCase();
  }
  return "utf-8";
}

export function decodeBody(body: Buffer, charset: string): string {
  try {
    // WHATWG labels: "latin1"/"iso-8859-1" decode as windows-1252, as browsers do.
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

export function decompressor(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}
