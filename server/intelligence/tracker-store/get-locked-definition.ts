import type { TDb, TTx } from "../../db";
import { AppError } from "../../errors";
import { parseDefinition, type TTrackerDefinition } from "../definition";

/**
 * The definition in force for a tracker — its highest locked version — parsed; null before the first
 * lock (or for an unknown tracker). Internal (the refresh uses it): no ownership check.
 */
export async function getLockedDefinition(
  db: TDb | TTx,
  trackerId: string,
): Promise<{ version: number; definition: TTrackerDefinition } | null> {
  const row = await db.trackerDefinition.findFirst({
    where: { trackerId, lockedAt: { not: null } },
    orderBy: { version: "desc" },
  });
  if (!row) return null;
  return { version: row.version, definition: parseLockedDefinition(trackerId, row.version, row.definition) };
}

/** Parsed locked definitions by (tracker, version): a locked row never changes (a trigger refuses updates). */
const parsedCache = new Map<string, TTrackerDefinition>();
const PARSED_CACHE_LIMIT = 2000;

/**
 * A locked definition (the refresh bundle's JSON text, or a row's parsed JSON) parsed once per process: the hot path
 * neither re-parses nor re-validates the same immutable definition on every refresh. Bounded; the oldest goes first.
 */
export function parseLockedDefinition(trackerId: string, version: number, json: unknown): TTrackerDefinition {
  const key = `${trackerId}:${version}`;
  const cached = parsedCache.get(key);
  if (cached) return cached;
  const parsed = parseDefinition(typeof json === "string" ? parseJsonText(json) : json);
  if (!parsed.ok) {
    throw new AppError(
      "INTERNAL",
      `Locked definition version ${version} of tracker ${trackerId} no longer validates: ${parsed.errors.join("; ")}`,
      { details: { errors: parsed.errors } },
    );
  }
  if (parsedCache.size >= PARSED_CACHE_LIMIT) parsedCache.delete(parsedCache.keys().next().value as string);
  // Frozen, as the locked row is: every refresh of this version shares the object, and what is derived from it
  // (record schemas, build-record-schema.ts) may be cached by it.
  const definition = deepFreeze(parsed.definition);
  parsedCache.set(key, definition);
  return definition;
}

/** Stored JSON that does not parse reads as no definition, which parseDefinition refuses with its own message. */
function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
