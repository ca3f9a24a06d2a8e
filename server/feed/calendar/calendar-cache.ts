import { createHash, randomUUID } from "node:crypto";
import type { TFetchConfig } from "../../capabilities/config";
import { CapabilityFailure } from "../../capabilities/envelope";
import { safeFetch } from "../../capabilities/web-scrape/safe-fetch";
import type { TDb } from "../../db";
import type { TDefer } from "../../defer";
import { publish } from "../../events";
import { logger } from "../../logger";
import {
  CalendarParseError,
  parseCalendar,
  type TCalendarOccurrence,
  ZCalendarOccurrenceSchema,
} from "./parse-calendar";

/**
 * The feed's calendar cache (docs/design.md §6: the fast path never waits on a remote host). One row per
 * (user, ICS URL), written only here. A feed load reads the row; when it is missing or due, the load
 * schedules `refreshCalendar` through `defer` and answers at once ("loading" the first time). The
 * refresh downloads with a conditional GET (ETag / Last-Modified → 304, no re-download), expands the
 * occurrences for the coming weeks, stores them and tells open pages through the feed event. The row
 * lives in the database because a serverless host keeps no memory between requests.
 */

/** A good copy is refetched after this long (the next feed load after it schedules the refetch). */
export const CALENDAR_REFRESH_MS = 15 * 60_000;
/** Occurrences are expanded this far back / ahead of the refetch… */
const EXPAND_BEHIND_MS = 86_400_000;
const EXPAND_AHEAD_MS = 31 * 86_400_000;
/** …and re-expanded (from the stored file, after a 304) before less than this much is left ahead. */
const MIN_AHEAD_MS = 8 * 86_400_000;
/** While refetches fail, the last good copy is shown (with the error) for this long. */
export const CALENDAR_STALE_LIMIT_MS = 24 * 3_600_000;
/** Failed refetches back off 1, 2, 4 … minutes, up to an hour. */
const BACKOFF_BASE_MS = 60_000;
const BACKOFF_MAX_MS = 3_600_000;

export type TCalendarCacheView = {
  occurrences: TCalendarOccurrence[] | null;
  /** Last successful download or revalidation. */
  fetchedAt: Date | null;
  error: string | null;
  nextFetchAt: Date | null;
  leaseExpiresAt: Date | null;
};

export type TCalendarRefreshInput = {
  userId: string;
  url: string;
  now: Date;
  fetchConfig: TFetchConfig;
  /** Refetch even if the copy is fresh (the Refresh button); still single flight and conditional. */
  force?: boolean;
};

/** downloaded: a new file; not_modified: 304; unchanged: same bytes again; failed; skipped: not due or in flight. */
export type TCalendarRefreshOutcome = "downloaded" | "not_modified" | "unchanged" | "failed" | "skipped";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const hashUrl = sha256;

function parseOccurrences(value: unknown): TCalendarOccurrence[] | null {
  if (!Array.isArray(value)) return null;
  const parsed = ZCalendarOccurrenceSchema.array().safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The cached calendar of this user's URL (never the file itself), or null before the first refresh. */
export async function readCalendarCache(db: TDb, userId: string, url: string): Promise<TCalendarCacheView | null> {
  const row = await db.calendarCache.findUnique({
    where: { userId_urlHash: { userId, urlHash: hashUrl(url) } },
    select: {
      url: true,
      occurrences: true,
      fetchedAt: true,
      error: true,
      nextFetchAt: true,
      leaseExpiresAt: true,
    },
  });
  if (!row || row.url !== url) return null;
  return {
    occurrences: parseOccurrences(row.occurrences),
    fetchedAt: row.fetchedAt,
    error: row.error,
    nextFetchAt: row.nextFetchAt,
    leaseExpiresAt: row.leaseExpiresAt,
  };
}

/** The calendar in a person's Settings as the sources of one feed load see it: its URL and its cached copy. */
export type TLoadCalendar = { url: string; read: (userId: string) => Promise<TCalendarCacheView | null> };

/**
 * The calendar of `url` for one feed load: its cached copy is read once per person however many sources ask (the
 * agenda and the briefing both show it, docs/feed.md) — one statement and one parse of the occurrences.
 */
export function calendarForLoad(db: TDb, url: string): TLoadCalendar {
  const reads = new Map<string, Promise<TCalendarCacheView | null>>();
  return {
    url,
    read: (userId) => {
      let read = reads.get(userId);
      if (!read) {
        read = readCalendarCache(db, userId, url);
        reads.set(userId, read);
      }
      return read;
    },
  };
}

/** Whether a feed load should schedule a refetch. */
export function isCalendarRefreshDue(view: TCalendarCacheView | null, now: Date, force = false): boolean {
  if (!view) return true;
  if (view.leaseExpiresAt && view.leaseExpiresAt > now) return false; // someone is on it
  if (force) return true;
  // (A success re-expands whenever less than MIN_AHEAD_MS is left, so the schedule alone keeps the expansion ahead.)
  return !view.nextFetchAt || view.nextFetchAt <= now;
}

// Per-process single flight: one scheduled refetch per (user, URL) until it settles. A forgotten entry
// (a task the platform never ran) expires, so it cannot block refetches forever.
const SCHEDULED_TTL_MS = 5 * 60_000;
const g = globalThis as { __bellwetherCalendarRefresh?: Map<string, number> };
g.__bellwetherCalendarRefresh ??= new Map();
const scheduled = g.__bellwetherCalendarRefresh;

/**
 * Hands a refetch to `defer` unless one is already scheduled or running in this process. Returns
 * whether it scheduled one. The refresh itself claims a lease, so processes do not duplicate it either.
 */
export function scheduleCalendarRefresh(
  db: TDb,
  input: TCalendarRefreshInput,
  defer: TDefer,
  onDone?: (outcome: TCalendarRefreshOutcome) => void,
): boolean {
  const key = `${input.userId}\n${hashUrl(input.url)}`;
  const since = scheduled.get(key);
  if (since !== undefined && Date.now() - since < SCHEDULED_TTL_MS) return false;
  scheduled.set(key, Date.now());
  defer(async () => {
    try {
      // Not `onDone?.(await …)`: an absent callback would skip evaluating the refresh itself.
      const outcome = await refreshCalendar(db, input);
      onDone?.(outcome);
    } finally {
      scheduled.delete(key);
    }
  });
  return true;
}

function describeFailure(error: unknown, url: string, maxBytes: number): string {
  if (error instanceof CapabilityFailure && error.code === "TOO_LARGE") {
    return `The calendar file is larger than the ${(maxBytes / 1_000_000).toFixed(1)} MB limit (FETCH_MAX_BYTES).`;
  }
  const message = error instanceof Error ? error.message : String(error);
  // The URL of a private calendar is a secret of its owner: never repeat it in the chip.
  return message
    .split(url)
    .join("the calendar URL")
    .replace(/^The page (at the calendar URL )?/, "The calendar URL ")
    .slice(0, 300);
}

function backoffMs(failures: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
}

function looksLikeCalendar(text: string): boolean {
  return /^\s*BEGIN:VCALENDAR/i.test(text.replace(/^\uFEFF/, ""));
}

/**
 * Fetches (conditionally), parses and stores one user's calendar, once across processes (lease on the
 * row), and notifies the user's open pages when what the feed shows changed. Never throws.
 */
export async function refreshCalendar(db: TDb, input: TCalendarRefreshInput): Promise<TCalendarRefreshOutcome> {
  const { userId, url, now } = input;
  const urlHash = hashUrl(url);
  const token = randomUUID();
  try {
    await db.calendarCache.createMany({ data: [{ userId, url, urlHash }], skipDuplicates: true });
    const leaseMs = input.fetchConfig.timeoutMs + 60_000;
    const claimed = await db.calendarCache.updateMany({
      where: {
        userId,
        urlHash,
        AND: [
          { OR: [{ leaseExpiresAt: null }, { leaseExpiresAt: { lt: now } }] },
          input.force ? {} : { OR: [{ nextFetchAt: null }, { nextFetchAt: { lte: now } }] },
        ],
      },
      data: { leaseToken: token, leaseExpiresAt: new Date(now.getTime() + leaseMs) },
    });
    if (claimed.count === 0) return "skipped";
    return await refreshClaimed(db, input, urlHash, token);
  } catch (error) {
    logger.warn("calendar refresh failed unexpectedly", {
      userId,
      error: error instanceof Error ? error.name : "unknown",
    });
    await db.calendarCache
      .updateMany({ where: { userId, urlHash, leaseToken: token }, data: { leaseToken: null, leaseExpiresAt: null } })
      .catch(() => {});
    return "failed";
  }
}

async function refreshClaimed(
  db: TDb,
  input: TCalendarRefreshInput,
  urlHash: string,
  token: string,
): Promise<TCalendarRefreshOutcome> {
  const { userId, url, now } = input;
  const before = await db.calendarCache.findUniqueOrThrow({
    where: { userId_urlHash: { userId, urlHash } },
    select: {
      id: true,
      etag: true,
      lastModified: true,
      bodyHash: true,
      error: true,
      failures: true,
      fetchedAt: true,
      occurrences: true,
      expandedUntil: true,
    },
  });
  const hasCopy = before.fetchedAt !== null && before.bodyHash !== null;
  const window = { from: new Date(now.getTime() - EXPAND_BEHIND_MS), to: new Date(now.getTime() + EXPAND_AHEAD_MS) };
  const expanded = (occurrences: TCalendarOccurrence[]) => ({
    occurrences,
    expandedFrom: window.from,
    expandedUntil: window.to,
  });
  const succeeded = {
    leaseToken: null,
    leaseExpiresAt: null,
    checkedAt: now,
    fetchedAt: now,
    error: null,
    failures: 0,
    nextFetchAt: new Date(now.getTime() + CALENDAR_REFRESH_MS),
  };
  const fenced = { id: before.id, leaseToken: token };

  let outcome: TCalendarRefreshOutcome;
  let occurrences: TCalendarOccurrence[] | null = null;
  try {
    const res = await safeFetch(url, input.fetchConfig, {
      accept: "text/calendar, text/plain;q=0.8, */*;q=0.5",
      ifNoneMatch: hasCopy ? before.etag : null,
      ifModifiedSince: hasCopy ? before.lastModified : null,
    });
    const bodyHash = res.status === 304 ? null : sha256(res.text);
    if (res.status === 304 || (hasCopy && bodyHash === before.bodyHash)) {
      // Same file (a 304, or a host without validators sending the same bytes): nothing to parse or store,
      // unless the stored expansion is running out.
      outcome = res.status === 304 ? "not_modified" : "unchanged";
      if ((before.expandedUntil?.getTime() ?? 0) < now.getTime() + MIN_AHEAD_MS) {
        const stored = await db.calendarCache.findUniqueOrThrow({ where: { id: before.id }, select: { body: true } });
        occurrences = parseCalendar(stored.body ?? "", window).occurrences;
      }
      await db.calendarCache.updateMany({
        where: fenced,
        data: { ...succeeded, ...(occurrences ? expanded(occurrences) : {}) },
      });
    } else {
      if (!looksLikeCalendar(res.text)) {
        throw new CalendarParseError("The calendar URL did not return an iCalendar (.ics) file.");
      }
      const parsed = parseCalendar(res.text, window);
      occurrences = parsed.occurrences;
      if (parsed.truncated || parsed.skippedEvents > 0) {
        logger.info("calendar expanded partially", {
          userId,
          skippedEvents: parsed.skippedEvents,
          truncated: parsed.truncated,
        });
      }
      outcome = "downloaded";
      await db.calendarCache.updateMany({
        where: fenced,
        data: {
          ...succeeded,
          ...expanded(occurrences),
          body: res.text,
          bodyHash,
          bytes: Buffer.byteLength(res.text),
          etag: res.etag,
          lastModified: res.lastModified,
        },
      });
      // Only the configured URL's copy is kept: a changed setting leaves no other calendars behind.
      await db.calendarCache.deleteMany({ where: { userId, urlHash: { not: urlHash } } });
    }
  } catch (error) {
    // Keep the last good copy and its validators: the next try downloads again if the file was bad.
    outcome = "failed";
    const failures = before.failures + 1;
    await db.calendarCache.updateMany({
      where: fenced,
      data: {
        leaseToken: null,
        leaseExpiresAt: null,
        checkedAt: now,
        error: describeFailure(error, url, input.fetchConfig.maxBytes),
        failures,
        nextFetchAt: new Date(now.getTime() + backoffMs(failures)),
      },
    });
  }

  const after = await db.calendarCache.findUnique({
    where: { id: before.id },
    select: { error: true, occurrences: true },
  });
  const changed =
    before.fetchedAt === null ||
    after?.error !== before.error ||
    (occurrences !== null && JSON.stringify(after?.occurrences) !== JSON.stringify(before.occurrences));
  if (changed) await publish(db, "feed.changed", { userId, reason: "calendar" });
  return outcome;
}
