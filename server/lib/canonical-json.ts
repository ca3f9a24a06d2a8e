/**
 * Deterministic JSON: object keys sorted (by code unit), undefined members dropped, -0 written as 0.
 * Two structurally equal values always serialise identically, so the hot loop can hash them.
 * Non-finite numbers, bigints, functions and symbols are rejected rather than silently mangled.
 */
export function canonicalJson(value: unknown): string {
  return serialise(value, new Set());
}

function serialise(value: unknown, seen: Set<object>): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: cannot encode the number ${value}`);
      return Object.is(value, -0) ? "0" : JSON.stringify(value);
    case "object":
      break;
    default:
      throw new TypeError(`canonicalJson: cannot encode a ${typeof value}`);
  }
  const object = value as object;
  if (seen.has(object)) throw new TypeError("canonicalJson: cannot encode a circular structure");
  const withToJson = object as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === "function") return serialise(withToJson.toJSON(), seen);
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      return `[${object.map((item) => (item === undefined ? "null" : serialise(item, seen))).join(",")}]`;
    }
    const entries = Object.entries(object)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${serialise(v, seen)}`).join(",")}}`;
  } finally {
    seen.delete(object);
  }
}
