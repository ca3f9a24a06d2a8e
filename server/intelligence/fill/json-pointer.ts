/** RFC 6901 lookup. Own properties only (no prototype walking); `found: false` when any step is missing. */
export function resolveJsonPointer(
  document: unknown,
  pointer: string,
): { found: true; value: unknown } | { found: false } {
  if (pointer === "") return { found: true, value: document };
  if (!pointer.startsWith("/")) return { found: false };
  let node: unknown = document;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return { found: false };
      const index = Number(token);
      if (index >= node.length) return { found: false };
      node = node[index];
    } else if (typeof node === "object" && node !== null && Object.hasOwn(node, token)) {
      node = (node as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: node };
}
